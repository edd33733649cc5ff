/* load-print.c - load over time: being written. */
