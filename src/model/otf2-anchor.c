/*
 * otf2-anchor.c - OTF2's library reads an anchor file in a child process first (otf2-anchor.h).
 */
#include "model/otf2-anchor.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <otf2/otf2.h>

/* How long the library may take: an anchor is a few hundred bytes, read in microseconds (a
 * damaged one has kept it busy for seconds before it gave up, or for ever). */
#define ANCHOR_WAIT_MS 3000

static OTF2_ErrorCode quiet_cb(void *ud, const char *file, uint64_t line, const char *function,
			       OTF2_ErrorCode code, const char *fmt, va_list va)
{
	(void)ud, (void)file, (void)line, (void)function, (void)fmt, (void)va;
	return code;
}

int otf2_anchor_check(const char *anchor, char *err, size_t errlen)
{
	const struct timespec tick = {0, 1000000};
	int status, null;
	pid_t pid = fork(), got = 0;

	if (pid < 0)
		return 0;
	if (pid == 0) {
		OTF2_Reader *rd;

		/* the library's own messages are the parent's to give */
		null = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (null >= 0)
			dup2(null, STDERR_FILENO);
		OTF2_Error_RegisterCallback(quiet_cb, NULL);
		rd = OTF2_Reader_Open(anchor);
		if (rd)
			OTF2_Reader_Close(rd);
		_exit(0);
	}
	for (int ms = 0; ms < ANCHOR_WAIT_MS && got == 0; ms++) {
		got = waitpid(pid, &status, WNOHANG);
		if (got == 0)
			nanosleep(&tick, NULL);
		else if (got < 0 && errno == EINTR)
			got = 0;
	}
	if (got == 0) {
		kill(pid, SIGKILL);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		snprintf(
		    err, errlen,
		    "%s: OTF2's library does not finish reading this anchor file (in %d s): it "
		    "is damaged",
		    anchor, ANCHOR_WAIT_MS / 1000);
		return -EINVAL;
	}
	if (got > 0 && WIFEXITED(status) && WEXITSTATUS(status)) {
		/* the child exits 0 whatever the library found: the library ended it (a sanitizer
		 * that refused an allocation the anchor asked for, say) */
		snprintf(
		    err, errlen,
		    "%s: OTF2's library failed reading this anchor file (exit status %d): it is "
		    "damaged",
		    anchor, WEXITSTATUS(status));
		return -EINVAL;
	}
	if (got > 0 && WIFSIGNALED(status)) {
		snprintf(err, errlen,
			 "%s: OTF2's library crashed reading this anchor file (signal %d): it is "
			 "damaged",
			 anchor, WTERMSIG(status));
		return -EINVAL;
	}
	return 0;
}
