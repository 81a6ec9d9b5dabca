#!/bin/sh
# The C++ compiler of the steps amp-compile builds in the sanitizer run
# (lit.cfg.py sets CXX to this, AMP_TEST_CXX to the build's compiler) and
# in the importer's tests (Python/zoo.test, Python/torch-import.test): at
# -O1 after amp-compile's -O3. The steps are not instrumented, so their
# level of optimization changes nothing the sanitizers see; without FMA
# contraction or fast math it changes no bit either (the differential
# tests still compare them with the interpreter bit for bit). -O1 takes
# about 60% of -O3's time.
exec "${AMP_TEST_CXX:-c++}" "$@" -O1
