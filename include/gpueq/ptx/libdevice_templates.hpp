// The kept nvcc 13 output that ptx/lift_regions.hpp compares kernels' double-precision math
// with: the PTX nvcc 13.0 emits for sm_80 for `*y = log(x)`, `*y = exp(x)` and `*y = pow(x, 2.5)`
// (the latter twice: with the helper of the exponent as a constant, and with nvcc's generic
// helper of two parameters). Kept apart from the lifter so that its logic reads on its own; the
// texts are evaluated once, when the first kernel is lifted (region_templates()). This header
// holds log and exp; the two pow texts are in ptx/libdevice_templates_pow.hpp, included here.
#pragma once

#include <gpueq/ptx/libdevice_templates_pow.hpp>

#include <string_view>

namespace gpueq::ptx::detail {

// nvcc 13.0, sm_80: `extern "C" __global__ void t(double x, double* y) { *y = fn(x); }`.
inline constexpr std::string_view libdevice_log_f64 = R"(.version 9.0
.target sm_80
.address_size 64
.visible .entry t_log(.param .f64 t_log_param_0, .param .u64 t_log_param_1)
{
	.reg .pred %p<5>;
	.reg .f32 %f<2>;
	.reg .b32 %r<28>;
	.reg .f64 %fd<59>;
	.reg .b64 %rd<3>;
	ld.param.f64 %fd56, [t_log_param_0];
	ld.param.u64 %rd1, [t_log_param_1];
	{ .reg .b32 %temp; mov.b64 {%r25, %temp}, %fd56; }
	{ .reg .b32 %temp; mov.b64 {%temp, %r24}, %fd56; }
	setp.gt.s32 %p1, %r24, 1048575;
	mov.u32 %r26, -1023;
	@%p1 bra $L__BB0_2;
	mul.f64 %fd56, %fd56, 0d4350000000000000;
	{ .reg .b32 %temp; mov.b64 {%temp, %r24}, %fd56; }
	{ .reg .b32 %temp; mov.b64 {%r25, %temp}, %fd56; }
	mov.u32 %r26, -1077;
$L__BB0_2:
	add.s32 %r13, %r24, -1;
	setp.lt.u32 %p2, %r13, 2146435071;
	@%p2 bra $L__BB0_4;
	bra.uni $L__BB0_3;
$L__BB0_4:
	shr.u32 %r15, %r24, 20;
	add.s32 %r27, %r26, %r15;
	and.b32 %r16, %r24, -2146435073;
	or.b32 %r17, %r16, 1072693248;
	mov.b64 %fd57, {%r25, %r17};
	setp.lt.s32 %p4, %r17, 1073127583;
	@%p4 bra $L__BB0_6;
	{ .reg .b32 %temp; mov.b64 {%r18, %temp}, %fd57; }
	{ .reg .b32 %temp; mov.b64 {%temp, %r19}, %fd57; }
	add.s32 %r20, %r19, -1048576;
	mov.b64 %fd57, {%r18, %r20};
	add.s32 %r27, %r27, 1;
$L__BB0_6:
	add.f64 %fd12, %fd57, 0d3FF0000000000000;
	mov.f64 %fd13, 0d3FF0000000000000;
	rcp.approx.ftz.f64 %fd14, %fd12;
	neg.f64 %fd15, %fd12;
	fma.rn.f64 %fd16, %fd15, %fd14, %fd13;
	fma.rn.f64 %fd17, %fd16, %fd16, %fd16;
	fma.rn.f64 %fd18, %fd17, %fd14, %fd14;
	add.f64 %fd19, %fd57, 0dBFF0000000000000;
	mul.f64 %fd20, %fd19, %fd18;
	fma.rn.f64 %fd21, %fd19, %fd18, %fd20;
	mul.f64 %fd22, %fd21, %fd21;
	mov.f64 %fd23, 0d3ED0EE258B7A8B04;
	mov.f64 %fd24, 0d3EB1380B3AE80F1E;
	fma.rn.f64 %fd25, %fd24, %fd22, %fd23;
	mov.f64 %fd26, 0d3EF3B2669F02676F;
	fma.rn.f64 %fd27, %fd25, %fd22, %fd26;
	mov.f64 %fd28, 0d3F1745CBA9AB0956;
	fma.rn.f64 %fd29, %fd27, %fd22, %fd28;
	mov.f64 %fd30, 0d3F3C71C72D1B5154;
	fma.rn.f64 %fd31, %fd29, %fd22, %fd30;
	mov.f64 %fd32, 0d3F624924923BE72D;
	fma.rn.f64 %fd33, %fd31, %fd22, %fd32;
	mov.f64 %fd34, 0d3F8999999999A3C4;
	fma.rn.f64 %fd35, %fd33, %fd22, %fd34;
	mov.f64 %fd36, 0d3FB5555555555554;
	fma.rn.f64 %fd37, %fd35, %fd22, %fd36;
	sub.f64 %fd38, %fd19, %fd21;
	add.f64 %fd39, %fd38, %fd38;
	neg.f64 %fd40, %fd21;
	fma.rn.f64 %fd41, %fd40, %fd19, %fd39;
	mul.f64 %fd42, %fd18, %fd41;
	mul.f64 %fd43, %fd22, %fd37;
	fma.rn.f64 %fd44, %fd43, %fd21, %fd42;
	xor.b32 %r21, %r27, -2147483648;
	mov.u32 %r22, -2147483648;
	mov.u32 %r23, 1127219200;
	mov.b64 %fd45, {%r21, %r23};
	mov.b64 %fd46, {%r22, %r23};
	sub.f64 %fd47, %fd45, %fd46;
	mov.f64 %fd48, 0d3FE62E42FEFA39EF;
	fma.rn.f64 %fd49, %fd47, %fd48, %fd21;
	neg.f64 %fd50, %fd47;
	fma.rn.f64 %fd51, %fd50, %fd48, %fd49;
	sub.f64 %fd52, %fd51, %fd21;
	sub.f64 %fd53, %fd44, %fd52;
	mov.f64 %fd54, 0d3C7ABC9E3B39803F;
	fma.rn.f64 %fd55, %fd47, %fd54, %fd53;
	add.f64 %fd58, %fd49, %fd55;
	bra.uni $L__BB0_7;
$L__BB0_3:
	mov.f64 %fd10, 0d7FF0000000000000;
	fma.rn.f64 %fd11, %fd56, %fd10, %fd10;
	{ .reg .b32 %temp; mov.b64 {%temp, %r14}, %fd56; }
	mov.b32 %f1, %r14;
	setp.eq.f32 %p3, %f1, 0f00000000;
	selp.f64 %fd58, 0dFFF0000000000000, %fd11, %p3;
$L__BB0_7:
	cvta.to.global.u64 %rd2, %rd1;
	st.global.f64 [%rd2], %fd58;
	ret;
}
)";

inline constexpr std::string_view libdevice_exp_f64 = R"(.version 9.0
.target sm_80
.address_size 64
.visible .entry t_exp(.param .f64 t_exp_param_0, .param .u64 t_exp_param_1)
{
	.reg .pred %p<4>;
	.reg .f32 %f<3>;
	.reg .b32 %r<16>;
	.reg .f64 %fd<41>;
	.reg .b64 %rd<3>;
	ld.param.f64 %fd5, [t_exp_param_0];
	ld.param.u64 %rd1, [t_exp_param_1];
	mov.f64 %fd6, 0d4338000000000000;
	mov.f64 %fd7, 0d3FF71547652B82FE;
	fma.rn.f64 %fd8, %fd5, %fd7, %fd6;
	{ .reg .b32 %temp; mov.b64 {%r1, %temp}, %fd8; }
	mov.f64 %fd9, 0dC338000000000000;
	add.rn.f64 %fd10, %fd8, %fd9;
	mov.f64 %fd11, 0dBFE62E42FEFA39EF;
	fma.rn.f64 %fd12, %fd10, %fd11, %fd5;
	mov.f64 %fd13, 0dBC7ABC9E3B39803F;
	fma.rn.f64 %fd14, %fd10, %fd13, %fd12;
	mov.f64 %fd15, 0d3E928AF3FCA213EA;
	mov.f64 %fd16, 0d3E5ADE1569CE2BDF;
	fma.rn.f64 %fd17, %fd16, %fd14, %fd15;
	mov.f64 %fd18, 0d3EC71DEE62401315;
	fma.rn.f64 %fd19, %fd17, %fd14, %fd18;
	mov.f64 %fd20, 0d3EFA01997C89EB71;
	fma.rn.f64 %fd21, %fd19, %fd14, %fd20;
	mov.f64 %fd22, 0d3F2A01A014761F65;
	fma.rn.f64 %fd23, %fd21, %fd14, %fd22;
	mov.f64 %fd24, 0d3F56C16C1852B7AF;
	fma.rn.f64 %fd25, %fd23, %fd14, %fd24;
	mov.f64 %fd26, 0d3F81111111122322;
	fma.rn.f64 %fd27, %fd25, %fd14, %fd26;
	mov.f64 %fd28, 0d3FA55555555502A1;
	fma.rn.f64 %fd29, %fd27, %fd14, %fd28;
	mov.f64 %fd30, 0d3FC5555555555511;
	fma.rn.f64 %fd31, %fd29, %fd14, %fd30;
	mov.f64 %fd32, 0d3FE000000000000B;
	fma.rn.f64 %fd33, %fd31, %fd14, %fd32;
	mov.f64 %fd34, 0d3FF0000000000000;
	fma.rn.f64 %fd35, %fd33, %fd14, %fd34;
	fma.rn.f64 %fd36, %fd35, %fd14, %fd34;
	{ .reg .b32 %temp; mov.b64 {%r2, %temp}, %fd36; }
	{ .reg .b32 %temp; mov.b64 {%temp, %r3}, %fd36; }
	shl.b32 %r4, %r1, 20;
	add.s32 %r5, %r3, %r4;
	mov.b64 %fd40, {%r2, %r5};
	{ .reg .b32 %temp; mov.b64 {%temp, %r6}, %fd5; }
	mov.b32 %f2, %r6;
	abs.f32 %f1, %f2;
	setp.lt.f32 %p1, %f1, 0f4086232B;
	@%p1 bra $L__BB1_3;
	setp.lt.f64 %p2, %fd5, 0d0000000000000000;
	add.f64 %fd37, %fd5, 0d7FF0000000000000;
	selp.f64 %fd40, 0d0000000000000000, %fd37, %p2;
	setp.geu.f32 %p3, %f1, 0f40874800;
	@%p3 bra $L__BB1_3;
	shr.u32 %r7, %r1, 31;
	add.s32 %r8, %r1, %r7;
	shr.s32 %r9, %r8, 1;
	shl.b32 %r10, %r9, 20;
	add.s32 %r11, %r3, %r10;
	mov.b64 %fd38, {%r2, %r11};
	sub.s32 %r12, %r1, %r9;
	shl.b32 %r13, %r12, 20;
	add.s32 %r14, %r13, 1072693248;
	mov.u32 %r15, 0;
	mov.b64 %fd39, {%r15, %r14};
	mul.f64 %fd40, %fd38, %fd39;
$L__BB1_3:
	cvta.to.global.u64 %rd2, %rd1;
	st.global.f64 [%rd2], %fd40;
	ret;
}
)";

}  // namespace gpueq::ptx::detail
