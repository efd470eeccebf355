#!/bin/sh
# A stand-in for a library's timing program: what a [baseline] command prints (its last line is the JSON).
echo "timing m=$1 n=$2 k=$3 on device $4"
echo "{\"median_us\": 12.5, \"max_abs_error\": 0.001, \"what\": \"fixture matmul m=$1 n=$2 k=$3 device=$4\"}"
