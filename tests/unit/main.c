/* SPDX-License-Identifier: MIT */
/* CUnit runner for the core library's unit tests. */
#include <CUnit/Basic.h>
#include <stdio.h>

#include "testlib.h"

int main(void)
{
	unsigned failed;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	if (tl_suite_opcode() || tl_suite_field() || tl_suite_codec() || tl_suite_icrc() || tl_suite_malformed() ||
	    tl_suite_describe() || tl_suite_simwire() || tl_suite_rc() ||
	    tl_suite_property() ||
	    tl_suite_rc_faults() || tl_suite_flush_atomic_write() || tl_suite_qp() || tl_suite_connect() ||
	    tl_suite_rewrite() || tl_suite_analyze() || tl_suite_profile() || tl_suite_path() ||
	    tl_suite_decode_path() || tl_suite_encode_path() || tl_suite_cm() || tl_suite_rdma_cm() || tl_suite_cm_property() || tl_suite_cm_hostile() ||
	    tl_suite_srq() || tl_suite_trust() || tl_suite_bottleneck() || tl_suite_dcqcn() || tl_suite_dcqcn_params() ||
	    tl_suite_cc_fairness() || tl_suite_cc_pacer()) {
		fprintf(stderr, "unit: cannot register suites: %s\n", CU_get_error_msg());
		CU_cleanup_registry();
		return 2;
	}
	printf("CRC-32 backend: %s\n", rl_crc32_backend());
	CU_basic_set_mode(CU_BRM_NORMAL);
	CU_basic_run_tests();
	failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
