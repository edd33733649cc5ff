/* clocksync.c - MPI clock offsets: being written. */
