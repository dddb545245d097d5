/* bench_monitor_agent.h — the monitor bench's agent process (bench_monitor_agent.c). */
#ifndef KN_BENCH_MONITOR_AGENT_H
#define KN_BENCH_MONITOR_AGENT_H

/* The agent process: page server + its own CDP connection, commands on IN, answers on OUT; never
 * returns (it _exits). */
void bench_agent_main(int in, int out);

#endif
