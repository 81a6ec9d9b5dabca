# -*- Python -*-
# Runs the GoogleTest binaries under unittests/ as part of check-amp.

import lit.formats

config.name = "AMP-Unit"
config.suffixes = []
config.test_source_root = config.unittests_dir
config.test_exec_root = config.unittests_dir
config.test_format = lit.formats.GoogleTest(".", "Tests")
