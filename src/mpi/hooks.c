/* hooks.c - MPI wrapper hooks: being written. */
