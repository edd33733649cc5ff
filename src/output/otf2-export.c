/* otf2-export.c - OTF2 export: being written. */
