/* The CLI's commands: each takes the whole command line (argv[1] is its
 * name) and returns the exit status. A command in its own file declares its
 * entry point here and adds a row to the table in pterun.c. */
#ifndef PTERUN_CLI_COMMANDS_H
#define PTERUN_CLI_COMMANDS_H

typedef int (*pterun_command_fn)(int argc, char **argv);

/* pterun generate MODEL.pte --tokenizer FILE --prompt TEXT ...: text
 * generation with the llm component's runner (generate.c). */
int pterun_cmd_generate(int argc, char **argv);
/* pterun verify MODEL.bpte: run a BundledProgram's test cases (verify.c). */
int pterun_cmd_verify(int argc, char **argv);
/* Run and check every case of a .bpte (or one method's): 0 when all pass. */
int pterun_verify_bundle(const char *model, const char *method, double rtol, double atol,
                         const char *const *data, int ndata);

#endif
