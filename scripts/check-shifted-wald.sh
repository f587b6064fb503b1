#!/usr/bin/env bash
# Issue 31: no valid Wald SPRT with shifted thresholds beats the calibrated design at both
# rates. Runs the ignored test `no_valid_shifted_wald_beats_the_calibrated_design_over_the_issue_grid`
# (src/stats/calibrated/tests.rs): every design of the grid (healthy 0.5-0.99, gaps
# 0.05-0.3, alpha in {0.01, 0.05, 0.1, 0.2}, beta in {0.05, 0.1, 0.2}) truncated at most at
# 10,000 trials (all of them) is searched on a shift grid of 0.01 (odd multiples of 0.005
# within 1.0 either way), each rule built by `Sprt::new` as `rule: wald` builds it. The design
# weighs `best_wald`, proved at least as good at both rates as every valid Wald SPRT, so this
# is an independent check of that proof and its code. Long: the grid's longest designs
# (thousands of trials) dominate; not in the suite.
# Usage: scripts/check-shifted-wald.sh
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo test --release --lib -- --ignored --nocapture \
  no_valid_shifted_wald_beats_the_calibrated_design_over_the_issue_grid
