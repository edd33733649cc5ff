/*
 * salvage.h - completing the streams of processes that ended without closing them.
 *
 * The runtime keeps each recording thread's state and buffers in a live buffer file of the
 * experiment (format.h, struct psc_live_header; docs/format.md "Live buffers"). A process that
 * ends normally closes its streams and removes those files. One that was killed (SIGKILL), left
 * through _exit (the parent of daemon()), or crashed where the runtime could not see it, leaves
 * them behind with every record its threads committed. Salvaging appends those records to the
 * streams, as the chunks the process would have written, and ends each stream with an end
 * record of reason PSC_END_UNCLOSED; then it removes the live file.
 *
 * Only files of processes known to be gone are touched: a process of this kernel (same boot id)
 * whose pid no longer runs the same process, or a process of this host under an earlier boot.
 * Files of processes still running, or of another host sharing the directory, are left alone
 * (that host's own salvage completes them). Concurrent salvagers are safe: each file is taken
 * under an exclusive flock.
 */
#ifndef PSC_SALVAGE_H
#define PSC_SALVAGE_H

#include <stddef.h>
#include <stdint.h>

struct salvage_stats {
	unsigned streams; /* streams completed from a live file */
	uint64_t records; /* records taken from the buffers */
	unsigned removed; /* live files with nothing left to salvage, removed */
	unsigned alive;	  /* live files of processes still running, left alone */
	unsigned foreign; /* live files of another host's processes, left alone */
	unsigned failed;  /* live files that could not be salvaged (see the error) */
	char error[512];  /* the first failure, "PATH: ..." */
};

/*
 * Salvage every live file in DIR whose process is gone. 0, or a negative errno when DIR
 * cannot be read (the message in ERR); a file that cannot be salvaged (damaged, a read-only
 * directory, a full disk) is counted in ST->failed with the first reason in ST->error, and
 * stays for a later try.
 */
int salvage_dir(const char *dir, struct salvage_stats *st, char *err, size_t errlen);

#endif /* PSC_SALVAGE_H */
