/* proc_group.c — whether a process group still has a member (proc_group.h). */
#include "keynode/proc_group.h"

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <sys/wait.h>

int kn_proc_group_alive(pid_t pgid)
{
	while (waitpid(-pgid, NULL, WNOHANG) > 0)
		;
	return kill(-pgid, 0) == 0 || errno == EPERM;
}
