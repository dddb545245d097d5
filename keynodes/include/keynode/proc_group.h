/* proc_group.h — whether a process group keynode started (a browser, an agent) still has a member.
 *
 * keynode run is the subreaper of what it starts: a member that ended after its parent comes back
 * to us as a zombie, and a zombie still counts as a member of its group until it is reaped. */
#ifndef KEYNODE_PROC_GROUP_H
#define KEYNODE_PROC_GROUP_H

#include <sys/types.h>

/* 1 while some process of group pgid is left; the group's members that are our children and have
 * ended are reaped first (their exit status is not kept). */
int kn_proc_group_alive(pid_t pgid);

#endif
