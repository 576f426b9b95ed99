#!/bin/sh
# A stand-in for a simulation: prints its parameters and a score.
alpha=$1
beta=$2
score=$(awk -v a="$alpha" -v b="$beta" 'BEGIN { printf "%.2f", a * b }')
echo "alpha=$alpha beta=$beta score=$score"
