/* agent.c — the agent of an attempt as a child process group (runner.h): started under /bin/sh -c
 * with stdin closed and its output piped to a reader thread that keeps the first `cap` bytes in
 * agent.log and counts (and drops) the rest, so an agent that prints without end neither fills
 * the disk nor blocks on a full pipe. Stopping kills the whole group — children the agent forked
 * and left behind too — with SIGTERM, then SIGKILL. */
#define _GNU_SOURCE /* pipe2 */
#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "keynode/clock.h"
#include "keynode/proc_group.h"

struct kn_agent_proc {
	pid_t pid;              /* the leader; also the process group id */
	int exited, status;
	int out_fd;             /* read end of the output pipe */
	int log_fd;
	size_t cap;
	unsigned long long seen, kept;
	atomic_int stop_reader;
	pthread_t reader;
	int reader_started;
};

static void write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w, n -= (size_t)w;
	}
}

/* Drain the pipe until EOF, or until asked to stop and nothing more is waiting. */
static void *read_output(void *ud)
{
	kn_agent_proc *a = ud;
	char *chunk = malloc(65536);
	int after_stop = 0;
	for (;;) {
		/* a process that left the group may write on: after the stop, drain a bounded amount */
		if (atomic_load(&a->stop_reader) && ++after_stop > 256)
			break;
		struct pollfd pfd = {.fd = a->out_fd, .events = POLLIN};
		int pr = poll(&pfd, 1, 100);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr == 0) {
			if (atomic_load(&a->stop_reader))
				break;
			continue;
		}
		ssize_t n = chunk ? read(a->out_fd, chunk, 65536) : -1;
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			break;
		a->seen += (unsigned long long)n;
		if (a->kept < a->cap) {
			size_t take = (size_t)n < a->cap - a->kept ? (size_t)n : a->cap - a->kept;
			write_all(a->log_fd, chunk, take);
			a->kept += take;
		}
	}
	free(chunk);
	return NULL;
}

int kn_agent_start(kn_agent_proc **out, const char *cmd, char *const envp[], const char *log_path,
                   size_t cap, kn_err *err)
{
	*out = NULL;
	kn_agent_proc *a = calloc(1, sizeof *a);
	if (!a)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	a->cap = cap;
	a->out_fd = a->log_fd = -1;
	int pfd[2];
	if ((a->log_fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
		int e = errno;
		free(a);
		return kn_err_set(err, KN_EIO, "cannot write %s: %s", log_path, strerror(e));
	}
	if (pipe2(pfd, O_CLOEXEC) != 0) {
		int e = errno;
		close(a->log_fd);
		free(a);
		return kn_err_set(err, KN_EIO, "cannot make a pipe: %s", strerror(e));
	}
	char sh[] = "/bin/sh", dash_c[] = "-c", *line = strdup(cmd);
	char *const argv[] = {sh, dash_c, line, NULL};
	pid_t parent = getpid();
	pid_t pid = line ? fork() : -1;
	if (pid < 0) {
		int e = line ? errno : ENOMEM;
		free(line);
		close(pfd[0]), close(pfd[1]), close(a->log_fd);
		free(a);
		return kn_err_set(err, KN_EIO, "cannot start the agent: %s", strerror(e));
	}
	if (pid == 0) {
		/* only async-signal-safe calls from here to exec: the parent has threads */
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		int in = open("/dev/null", O_RDONLY);
		if (in >= 0)
			dup2(in, 0);
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		execve("/bin/sh", argv, envp);
		_exit(127);
	}
	free(line);
	setpgid(pid, pid); /* also here: no race with a kill of the group before the child ran */
	close(pfd[1]);
	a->pid = pid;
	a->out_fd = pfd[0];
	if (pthread_create(&a->reader, NULL, read_output, a) == 0)
		a->reader_started = 1;
	*out = a;
	return 0;
}

int kn_agent_exited(kn_agent_proc *a)
{
	if (a->exited)
		return 1;
	int st;
	pid_t r = waitpid(a->pid, &st, WNOHANG);
	if (r == a->pid) {
		a->exited = 1;
		a->status = st;
	} else if (r < 0 && errno == ECHILD) {
		a->exited = 1;
		a->status = 0;
	}
	return a->exited;
}

int kn_runner_adopt_orphans(void)
{
	return prctl(PR_SET_CHILD_SUBREAPER, 1) == 0 ? 0 : KN_EIO;
}

int kn_agent_pause(kn_agent_proc *a, int pause)
{
	if (!a || a->exited)
		return 0;
	return kill(-a->pid, pause ? SIGSTOP : SIGCONT) == 0 || errno == ESRCH ? 0 : KN_EIO;
}

void kn_agent_stop(kn_agent_proc *a, int grace_ms, kn_attempt_report *rep)
{
	if (!a)
		return;
	kn_agent_exited(a);
	if (kn_proc_group_alive(a->pid)) {
		kill(-a->pid, SIGTERM);
		kill(-a->pid, SIGCONT); /* a paused group (a takeover) would not see SIGTERM before it */
		for (int waited = 0; waited < grace_ms; waited += 20) {
			kn_agent_exited(a);
			if (a->exited && !kn_proc_group_alive(a->pid))
				break;
			kn_time_sleep_ms(20);
		}
		if (kn_proc_group_alive(a->pid))
			kill(-a->pid, SIGKILL);
	}
	while (!a->exited) {
		int st;
		pid_t r = waitpid(a->pid, &st, 0);
		if (r == a->pid)
			a->exited = 1, a->status = st;
		else if (r < 0 && errno != EINTR)
			a->exited = 1;
	}
	/* members killed with their parent come to us a moment later: reap them */
	for (int i = 0; i < 50 && kn_proc_group_alive(a->pid); i++)
		kn_time_sleep_ms(10);
	/* the group's last members may hold the pipe a moment longer: the reader stops on EOF, or
	 * on the flag once nothing more comes */
	atomic_store(&a->stop_reader, 1);
	if (a->reader_started)
		pthread_join(a->reader, NULL);
	if (a->kept < a->seen) {
		char note[160];
		int n = snprintf(note, sizeof note,
		                 "\n[keynode: agent output cut at %llu bytes of %llu]\n", a->kept, a->seen);
		write_all(a->log_fd, note, (size_t)n);
	}
	if (rep) {
		rep->exit_code = WIFEXITED(a->status) ? WEXITSTATUS(a->status) : -1;
		rep->exit_signal = WIFSIGNALED(a->status) ? WTERMSIG(a->status) : 0;
		rep->log_bytes = a->seen;
		rep->log_truncated = a->kept < a->seen;
	}
	close(a->out_fd);
	close(a->log_fd);
	free(a);
}
