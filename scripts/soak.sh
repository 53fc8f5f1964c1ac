#!/usr/bin/env bash
# Longer runs of the property tests whose case count can be raised: the filesystem reference
# model (tests/fs_reference.rs, FS_REFERENCE_CASES, default 20000; CI runs 96) and Level 3
# (tests/level3_props.rs, L3_CASES, default 5000; CI runs 160), and the patch translation
# property (tests/patch_props.rs) with fresh random cases instead of CI's fixed seed,
# SOAK_PATCH_RUNS times (default 10). A failure prints proptest's minimal case; keep it as a
# named regression test.
#
#   scripts/soak.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export FS_REFERENCE_CASES=${FS_REFERENCE_CASES:-20000}
export L3_CASES=${L3_CASES:-5000}
cargo test --release --test fs_reference --test level3_props
for _ in $(seq "${SOAK_PATCH_RUNS:-10}"); do
  PATCH_PROPS_RANDOM=1 cargo test --release --test patch_props
done
