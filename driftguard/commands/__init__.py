"""The commands of the command line, one module per family: ``common`` holds what they
share (exit codes, loading the config, writing the output), ``judging`` check, report
and facts, ``tools`` fix, discover, selftest and coverage, ``setup`` init and baseline.
``driftguard.cli`` parses the arguments and calls one of them."""
