/*
 * otf2-anchor.h - whether OTF2's library can read an archive's anchor file at all. Debian's
 * libotf2 3.0 loops for ever on some damaged anchors (a string that lost its NUL byte) and
 * may crash on others; it reports no offsets, so perfscope cannot check the file itself.
 */
#ifndef PSC_OTF2_ANCHOR_H
#define PSC_OTF2_ANCHOR_H

#include <stddef.h>

/*
 * Open and close the archive of ANCHOR with OTF2's library in a child process, which is
 * stopped after 3 seconds: 0 when the library finished (whatever it found), -EINVAL with
 * "ANCHOR: ..." in ERR when it did not finish, crashed or ended the process. 0 also when no child
 * could be made (the archive is then read without the check).
 */
int otf2_anchor_check(const char *anchor, char *err, size_t errlen);

#endif /* PSC_OTF2_ANCHOR_H */
