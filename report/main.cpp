#include "report/cli.h"

int main(int argc, char** argv) { return cprof::report::run_causal_report(argc, argv); }
