#!/usr/bin/env bash
# Fuzzes the amp-mlir front end and passes, the runtime's state-file and
# .npy readers and amp-train-step's options with libFuzzer for a given time.
#
#   bench/fuzz.sh [SECONDS]        (default 1800)
#
# Builds build-fuzz/ with clang-19, every amp library and the runtime (its
# host backend: the CUDA sources are not fuzzed) instrumented
# (-fsanitize=fuzzer-no-link,address), seeds a corpus with each split of the
# examples and lit inputs and the regression inputs and with the seeds of
# test/Fuzz/seeds/ (state files, .npy files, option strings), runs amp-fuzz,
# and prints the executions, the coverage and the crashes found (written to
# build-fuzz/crashes/). A crash, once fixed, goes to test/Fuzz/regressions/
# as a .fuzz file, where CI replays it.
set -euo pipefail
seconds=${1:-1800}
cd "$(dirname "$0")/.."
out=build-fuzz
./scripts/install-deps.sh fuzz

if [ ! -f "$out/build.ninja" ]; then
  cmake -G Ninja -S . -B "$out" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
    -DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link,address" \
    -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address" \
    -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address" \
    -DAMP_RUNTIME_CUDA=OFF -DAMP_ENABLE_FUZZER=ON > "$out.configure.log"
fi
cmake --build "$out" --target amp-fuzz

corpus="$out/corpus"
mkdir -p "$corpus" "$out/crashes"
# Seeds: every `// -----` split of every example and lit input.
python3 - "$corpus" <<'PY'
import hashlib, pathlib, sys
out = pathlib.Path(sys.argv[1])
sources = list(pathlib.Path("examples").glob("*.mlir"))
sources += list(pathlib.Path("test").rglob("*.mlir"))
sources += list(pathlib.Path("test/Fuzz/regressions").glob("*.fuzz"))
# The runtime's readers and the pipeline's options: whole files, not split.
seeds = [p for p in pathlib.Path("test/Fuzz/seeds").iterdir()
         if p.is_file() and p.suffix != ".py"]
# Bytes, not text: a regression input may hold bytes that are not UTF-8.
for path in sources:
    for data in path.read_bytes().split(b"// -----"):
        (out / hashlib.sha1(data).hexdigest()).write_bytes(data)
for path in seeds:
    data = path.read_bytes()
    (out / hashlib.sha1(data).hexdigest()).write_bytes(data)
print(f"seeded {len(list(out.iterdir()))} inputs from "
      f"{len(sources) + len(seeds)} files")
PY

log="$out/fuzz.log"
set +e
"$out/bin/amp-fuzz" "$corpus" -max_total_time="$seconds" -timeout=20 \
  -rss_limit_mb=4096 -max_len=16384 -artifact_prefix="$out/crashes/" \
  -print_final_stats=1 > "$log" 2>&1
status=$?
set -e
echo "fuzzed for $seconds s (libFuzzer exit $status)"
# -a: the log quotes inputs, whose bytes may make grep call it binary.
grep -aE "stat::number_of_executed_units|stat::peak_rss_mb|stat::new_units_added" "$log" || true
grep -aE "^#[0-9]+.*(DONE|cov:)" "$log" | tail -1 || true
# Crashes, sanitizer reports, leaks, timeouts (-timeout) and running out of
# memory count; a slow unit (over 10 s, within the 20 s timeout) is only
# reported: on a loaded machine any input may take that long once.
crashes=$(find "$out/crashes" -type f ! -name 'slow-unit-*' | wc -l)
slow=$(find "$out/crashes" -type f -name 'slow-unit-*' | wc -l)
echo "slow units: $slow"
echo "crashes: $crashes (in $out/crashes/)"
[ "$crashes" -eq 0 ]
