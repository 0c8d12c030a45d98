#!/usr/bin/env bash
# Session 5: L2/L1 request and sector counts of Quire's and Triton's decode
# split kernels (Llama-3-8B 64 x 4096): where Quire's 35% L2 hit rate (Triton
# 1.7%) comes from.
set -uo pipefail
eval "$(tools/scripts/device-unpack.sh)"
M=dram__bytes_read.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read.sum
M=$M,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum
M=$M,l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts.sum
M=$M,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
M=$M,smsp__inst_executed_op_ldgsts.sum,smsp__inst_executed.sum,lts__t_sectors_srcunit_tex.sum
M=$M,lts__t_sectors_srcunit_tex_lookup_hit.sum,lts__t_sectors.sum,lts__t_sectors_lookup_hit.sum
M=$M,lts__t_sectors_srcunit_ltcfabric.sum,lts__t_sectors_srcunit_ltcfabric_lookup_hit.sum,gpu__time_duration.sum
M=$M,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,dram__sectors_read.sum
cd bench && timeout 300 ncu --clock-control none --kernel-name regex:'decode_split' \
  --launch-skip 2 --launch-count 2 --metrics $M python3 decode_profile.py > $OUT/ncu_l2.txt 2>&1
echo "ncu rc $?"
grep -vE "^==PROF==|^  *-+" $OUT/ncu_l2.txt | tail -60
