#!/usr/bin/env bash
# Compare the calibrated designs of two `gate` binaries over a grid of 216 designs (6 healthy
# rates x 3 gaps x 4 alphas x 3 betas, default truncation): for each, OLD's and NEW's
# expected trials at the two rates together, "better" / "same" / "WORSE", and "RISK!" if NEW's
# realised risks exceed the request. This is how the secant search of stats::calibrated was
# checked against the bisections alone (old binary: main at 928e3c1): 110 better, 106 same,
# none worse. Usage: scripts/compare-designs.sh OLD_GATE NEW_GATE (needs jq).
set -euo pipefail
old=$1
new=$2
for h in 0.99 0.95 0.9 0.8 0.7 0.6; do
 for gap in 0.2 0.1 0.05; do
  r=$(awk -v h=$h -v g=$gap 'BEGIN{print h-g}')
  for a in 0.01 0.05 0.1 0.2; do for b in 0.01 0.1 0.2; do
   o=$("$old" plan --healthy "$h" --regressed "$r" --alpha "$a" --beta "$b" --format json 2>/dev/null | jq -r '.sequential | "\(.asn_healthy + .asn_regressed)"')
   w=$("$new" plan --healthy "$h" --regressed "$r" --alpha "$a" --beta "$b" --format json 2>/dev/null | jq -r '.sequential | "\(.asn_healthy + .asn_regressed) \(.realised_alpha) \(.realised_beta)"')
   read -r wc wa wb <<<"$w"
   awk -v o="$o" -v w="$wc" -v d="$h $r $a $b" -v wa="$wa" -v wb="$wb" -v a="$a" -v b="$b" 'BEGIN{ rel=(w-o)/o; tag=(rel>1e-12?"WORSE":(rel< -1e-12?"better":"same")); if (wa>a || wb>b) tag=tag" RISK!"; printf "%s %s old %.4f new %.4f rel %+.5f\n", tag, d, o, w, rel}'
  done; done
 done
done
