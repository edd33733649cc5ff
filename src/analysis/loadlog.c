/* loadlog.c - load logs: being written. */
