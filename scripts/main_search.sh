# The main job's search, shared by scripts/run.sh and the GPU evidence scripts (sourced, not run):
# the problem and the arguments of `evotune search` beyond --problem and --db.
#  - 300 trials in generations of 16 with lookahead 3: up to 32 configs proposed ahead of their results,
#    so 16 compile processes stay busy through slow compiles while the GPU times the current generation
#    (docs/searching.md, "Lookahead"); on the recorded T4 spaces this is as good as the old settings at this
#    budget (docs/searching.md, "Choosing the evo defaults").
main_problem="b=4,hq=16,sq=4096,skv=4096,d=128,causal=1,dtype=fp16"
main_search_args=(--devices 0 --budget 300 --evo offspring=16 --lookahead 3)
