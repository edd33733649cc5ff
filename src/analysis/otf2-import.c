/* otf2-import.c - OTF2 archives into the MPI model: being written. */
