/* The CLI's commands: each takes the whole command line (argv[1] is its
 * name) and returns the exit status. A command in its own file declares its
 * entry point here and adds a row to the table in pterun.c. */
#ifndef PTERUN_CLI_COMMANDS_H
#define PTERUN_CLI_COMMANDS_H

#include <stdio.h>

typedef int (*pterun_command_fn)(int argc, char **argv);

/* Each subcommand's usage (pterun.c holds them all): on stdout for -h/--help
 * (exit 0), on stderr after a usage error (exit 2). NULL: the whole tool's. */
void pterun_usage(const char *command, FILE *f);
/* Usage error: the message, then the command's usage on stderr; returns 2. */
int pterun_usage_error(const char *command, const char *fmt, ...);
/* -h or --help */
int pterun_is_help(const char *arg);
/* --threads N (-t N, and executor_runner's --cpu_threads N): 1..4096, or -1
 * to keep the pool as PTERUN_NUM_THREADS or the CPUs available size it.
 * Returns 0, or -1 after printing what was wrong. */
int pterun_parse_threads(const char *opt, const char *value, int *threads);
/* The pool's size, as the summaries print it (1 without a pool). */
int pterun_pool_threads(void);
/* Resizes the process pool when threads > 0; 0 or 1 (message printed). */
int pterun_apply_threads(int threads);

/* pterun generate MODEL.pte --tokenizer FILE --prompt TEXT ...: text
 * generation with the llm component's runner (generate.c). */
int pterun_cmd_generate(int argc, char **argv);
/* pterun verify MODEL.bpte: run a BundledProgram's test cases (verify.c). */
int pterun_cmd_verify(int argc, char **argv);
/* Run and check every case of a .bpte (or one method's): 0 when all pass. */
int pterun_verify_bundle(const char *model, const char *method, double rtol, double atol,
                         const char *const *data, int ndata);
/* The thread option names any command accepts (pterun_parse_threads). */
int pterun_is_threads_option(const char *arg);

#endif
