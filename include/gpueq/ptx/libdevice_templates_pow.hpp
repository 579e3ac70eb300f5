// The kept nvcc 13 output for `*y = pow(x, 2.5)` that ptx/lift_regions.hpp compares kernels'
// pow(double) with, twice: with the helper of the exponent as a constant, and with nvcc's generic
// helper of two parameters. The log and exp templates are in ptx/libdevice_templates.hpp, which
// includes this header; both are data only, evaluated once when the first kernel is lifted
// (region_templates()).
#pragma once

#include <string_view>

namespace gpueq::ptx::detail {

// nvcc 13.0, sm_80: `extern "C" __global__ void t_pow(double x, double* y) { *y = pow(x, 2.5); }`.
// pow(double) with a constant exponent c: nvcc calls a helper, __internal_accurate_pow (the
// double-double log of |x|, times c, and exp; c is a constant of its body), and handles the
// special cases around the call (x = 0, x < 0 with c an odd integer or not, infinities and NaN,
// x = 1). The exponent is 2.5 = 0d4004000000000000 here; the odd-integer test compares x's
// exponent field with K(c) = 1074790400 (see `odd_test_constant`).
inline constexpr std::string_view libdevice_pow_f64 = R"(.version 9.0
.target sm_80
.address_size 64
.func  (.param .b64 func_retval0) __internal_accurate_pow
(
	.param .b64 __internal_accurate_pow_param_0
)
;
.visible .entry t_pow(
	.param .f64 t_pow_param_0,
	.param .u64 t_pow_param_1
)
{
	.reg .pred	%p<16>;
	.reg .b32	%r<15>;
	.reg .f64	%fd<20>;
	.reg .b64	%rd<3>;
	ld.param.f64	%fd9, [t_pow_param_0];
	ld.param.u64	%rd1, [t_pow_param_1];
	mov.f64	%fd10, 0d4004000000000000;
	{
	.reg .b32 %temp;
	mov.b64	{%temp, %r1}, %fd10;
	}
	and.b32 	%r2, %r1, 2146435072;
	setp.eq.s32	%p2, %r2, 1074790400;
	abs.f64	%fd1, %fd9;
	{ // callseq 0, 0
	.reg .b32 temp_param_reg;
	.param .b64 param0;
	st.param.f64	[param0+0], %fd1;
	.param .b64 retval0;
	call.uni (retval0),
	__internal_accurate_pow,
	(
	param0
	);
	ld.param.f64	%fd19, [retval0+0];
	} // callseq 0
	{
	.reg .b32 %temp;
	mov.b64	{%temp, %r3}, %fd9;
	}
	setp.lt.s32	%p3, %r3, 0;
	and.pred 	%p1, %p3, %p2;
	setp.eq.f64	%p4, %fd9, 0d0000000000000000;
	@%p4 bra	$L__BB0_4;
	bra.uni	$L__BB0_1;
$L__BB0_4:
	selp.b32	%r4, %r3, 0, %p2;
	mov.u32	%r5, 0;
	or.b32 	%r6, %r4, 2146435072;
	setp.lt.s32	%p8, %r1, 0;
	selp.b32	%r7, %r6, %r4, %p8;
	mov.b64	%fd19, {%r5, %r7};
	bra.uni	$L__BB0_5;
$L__BB0_1:
	setp.gt.s32	%p5, %r3, -1;
	@%p5 bra	$L__BB0_5;
	mov.f64	%fd11, 0d4004000000000000;
	cvt.rzi.f64.f64	%fd12, %fd11;
	setp.eq.f64	%p6, %fd12, 0d4004000000000000;
	neg.f64	%fd13, %fd19;
	selp.f64	%fd19, %fd13, %fd19, %p1;
	@%p6 bra	$L__BB0_5;
	mov.f64	%fd19, 0dFFF8000000000000;
$L__BB0_5:
	add.f64	%fd15, %fd9, 0d4004000000000000;
	{
	.reg .b32 %temp;
	mov.b64	{%temp, %r8}, %fd15;
	}
	and.b32 	%r9, %r8, 2146435072;
	setp.ne.s32	%p9, %r9, 2146435072;
	@%p9 bra	$L__BB0_10;
	setp.gtu.f64	%p10, %fd1, 0d7FF0000000000000;
	@%p10 bra	$L__BB0_9;
	bra.uni	$L__BB0_7;
$L__BB0_9:
	mov.f64	%fd16, 0d4004000000000000;
	add.rn.f64	%fd19, %fd9, %fd16;
	bra.uni	$L__BB0_10;
$L__BB0_7:
	setp.neu.f64	%p11, %fd1, 0d7FF0000000000000;
	@%p11 bra	$L__BB0_10;
	setp.gt.s32	%p12, %r1, -1;
	selp.b32	%r10, 2146435072, 0, %p12;
	mov.u32	%r11, 0;
	and.b32 	%r12, %r1, 2147483647;
	setp.ne.s32	%p13, %r12, 1071644672;
	and.pred 	%p14, %p13, %p1;
	or.b32 	%r13, %r10, -2147483648;
	selp.b32	%r14, %r13, %r10, %p14;
	mov.b64	%fd19, {%r11, %r14};
$L__BB0_10:
	setp.eq.f64	%p15, %fd9, 0d3FF0000000000000;
	selp.f64	%fd17, 0d3FF0000000000000, %fd19, %p15;
	cvta.to.global.u64	%rd2, %rd1;
	st.global.f64	[%rd2], %fd17;
	ret;
}
.func  (.param .b64 func_retval0) __internal_accurate_pow(
	.param .b64 __internal_accurate_pow_param_0
)
{
	.reg .pred	%p<8>;
	.reg .f32	%f<3>;
	.reg .b32	%r<50>;
	.reg .f64	%fd<139>;
	ld.param.f64	%fd12, [__internal_accurate_pow_param_0];
	{
	.reg .b32 %temp;
	mov.b64	{%temp, %r47}, %fd12;
	}
	{
	.reg .b32 %temp;
	mov.b64	{%r46, %temp}, %fd12;
	}
	shr.u32	%r48, %r47, 20;
	setp.ne.s32	%p1, %r48, 0;
	@%p1 bra	$L__BB1_2;
	mul.f64	%fd13, %fd12, 0d4350000000000000;
	{
	.reg .b32 %temp;
	mov.b64	{%temp, %r47}, %fd13;
	}
	{
	.reg .b32 %temp;
	mov.b64	{%r46, %temp}, %fd13;
	}
	shr.u32	%r16, %r47, 20;
	add.s32	%r48, %r16, -54;
$L__BB1_2:
	add.s32	%r49, %r48, -1023;
	and.b32 	%r17, %r47, -2146435073;
	or.b32 	%r18, %r17, 1072693248;
	mov.b64	%fd136, {%r46, %r18};
	setp.lt.u32	%p2, %r18, 1073127583;
	@%p2 bra	$L__BB1_4;
	{
	.reg .b32 %temp;
	mov.b64	{%r19, %temp}, %fd136;
	}
	{
	.reg .b32 %temp;
	mov.b64	{%temp, %r20}, %fd136;
	}
	add.s32	%r21, %r20, -1048576;
	mov.b64	%fd136, {%r19, %r21};
	add.s32	%r49, %r48, -1022;
$L__BB1_4:
	add.f64	%fd14, %fd136, 0d3FF0000000000000;
	mov.f64	%fd15, 0d3FF0000000000000;
	rcp.approx.ftz.f64	%fd16, %fd14;
	neg.f64	%fd17, %fd14;
	fma.rn.f64	%fd18, %fd17, %fd16, %fd15;
	fma.rn.f64	%fd19, %fd18, %fd18, %fd18;
	fma.rn.f64	%fd20, %fd19, %fd16, %fd16;
	add.f64	%fd21, %fd136, 0dBFF0000000000000;
	mul.f64	%fd22, %fd21, %fd20;
	fma.rn.f64	%fd23, %fd21, %fd20, %fd22;
	mul.f64	%fd24, %fd23, %fd23;
	mov.f64	%fd25, 0d3ED0F5D241AD3B5A;
	mov.f64	%fd26, 0d3EB0F5FF7D2CAFE2;
	fma.rn.f64	%fd27, %fd26, %fd24, %fd25;
	mov.f64	%fd28, 0d3EF3B20A75488A3F;
	fma.rn.f64	%fd29, %fd27, %fd24, %fd28;
	mov.f64	%fd30, 0d3F1745CDE4FAECD5;
	fma.rn.f64	%fd31, %fd29, %fd24, %fd30;
	mov.f64	%fd32, 0d3F3C71C7258A578B;
	fma.rn.f64	%fd33, %fd31, %fd24, %fd32;
	mov.f64	%fd34, 0d3F6249249242B910;
	fma.rn.f64	%fd35, %fd33, %fd24, %fd34;
	mov.f64	%fd36, 0d3F89999999999DFB;
	fma.rn.f64	%fd37, %fd35, %fd24, %fd36;
	sub.f64	%fd38, %fd21, %fd23;
	add.f64	%fd39, %fd38, %fd38;
	neg.f64	%fd40, %fd23;
	fma.rn.f64	%fd41, %fd40, %fd21, %fd39;
	mul.f64	%fd42, %fd20, %fd41;
	fma.rn.f64	%fd43, %fd24, %fd37, 0d3FB5555555555555;
	mov.f64	%fd44, 0d3FB5555555555555;
	sub.f64	%fd45, %fd44, %fd43;
	fma.rn.f64	%fd46, %fd24, %fd37, %fd45;
	add.f64	%fd47, %fd46, 0d0000000000000000;
	add.f64	%fd48, %fd47, 0dBC46A4CB00B9E7B0;
	add.f64	%fd49, %fd43, %fd48;
	sub.f64	%fd50, %fd43, %fd49;
	add.f64	%fd51, %fd48, %fd50;
	mul.rn.f64	%fd52, %fd23, %fd23;
	neg.f64	%fd53, %fd52;
	fma.rn.f64	%fd54, %fd23, %fd23, %fd53;
	{
	.reg .b32 %temp;
	mov.b64	{%r22, %temp}, %fd42;
	}
	{
	.reg .b32 %temp;
	mov.b64	{%temp, %r23}, %fd42;
	}
	add.s32	%r24, %r23, 1048576;
	mov.b64	%fd55, {%r22, %r24};
	fma.rn.f64	%fd56, %fd23, %fd55, %fd54;
	mul.rn.f64	%fd57, %fd52, %fd23;
	neg.f64	%fd58, %fd57;
	fma.rn.f64	%fd59, %fd52, %fd23, %fd58;
	fma.rn.f64	%fd60, %fd52, %fd42, %fd59;
	fma.rn.f64	%fd61, %fd56, %fd23, %fd60;
	mul.rn.f64	%fd62, %fd49, %fd57;
	neg.f64	%fd63, %fd62;
	fma.rn.f64	%fd64, %fd49, %fd57, %fd63;
	fma.rn.f64	%fd65, %fd49, %fd61, %fd64;
	fma.rn.f64	%fd66, %fd51, %fd57, %fd65;
	add.f64	%fd67, %fd62, %fd66;
	sub.f64	%fd68, %fd62, %fd67;
	add.f64	%fd69, %fd66, %fd68;
	add.f64	%fd70, %fd23, %fd67;
	sub.f64	%fd71, %fd23, %fd70;
	add.f64	%fd72, %fd67, %fd71;
	add.f64	%fd73, %fd69, %fd72;
	add.f64	%fd74, %fd42, %fd73;
	add.f64	%fd75, %fd70, %fd74;
	sub.f64	%fd76, %fd70, %fd75;
	add.f64	%fd77, %fd74, %fd76;
	xor.b32 	%r25, %r49, -2147483648;
	mov.u32	%r26, -2147483648;
	mov.u32	%r27, 1127219200;
	mov.b64	%fd78, {%r25, %r27};
	mov.b64	%fd79, {%r26, %r27};
	sub.f64	%fd80, %fd78, %fd79;
	mov.f64	%fd81, 0d3FE62E42FEFA39EF;
	fma.rn.f64	%fd82, %fd80, %fd81, %fd75;
	neg.f64	%fd83, %fd80;
	fma.rn.f64	%fd84, %fd83, %fd81, %fd82;
	sub.f64	%fd85, %fd84, %fd75;
	sub.f64	%fd86, %fd77, %fd85;
	mov.f64	%fd87, 0d3C7ABC9E3B39803F;
	fma.rn.f64	%fd88, %fd80, %fd87, %fd86;
	add.f64	%fd89, %fd82, %fd88;
	sub.f64	%fd90, %fd82, %fd89;
	add.f64	%fd91, %fd88, %fd90;
	mov.f64	%fd92, 0d4004000000000000;
	{
	.reg .b32 %temp;
	mov.b64	{%temp, %r28}, %fd92;
	}
	shl.b32	%r29, %r28, 1;
	setp.gt.u32	%p3, %r29, -33554433;
	and.b32 	%r30, %r28, -15728641;
	selp.b32	%r31, %r30, %r28, %p3;
	{
	.reg .b32 %temp;
	mov.b64	{%r32, %temp}, %fd92;
	}
	mov.b64	%fd93, {%r32, %r31};
	mul.rn.f64	%fd94, %fd89, %fd93;
	neg.f64	%fd95, %fd94;
	fma.rn.f64	%fd96, %fd89, %fd93, %fd95;
	fma.rn.f64	%fd97, %fd91, %fd93, %fd96;
	add.f64	%fd4, %fd94, %fd97;
	sub.f64	%fd98, %fd94, %fd4;
	add.f64	%fd5, %fd97, %fd98;
	mov.f64	%fd99, 0d4338000000000000;
	mov.f64	%fd100, 0d3FF71547652B82FE;
	fma.rn.f64	%fd101, %fd4, %fd100, %fd99;
	{
	.reg .b32 %temp;
	mov.b64	{%r13, %temp}, %fd101;
	}
	mov.f64	%fd102, 0dC338000000000000;
	add.rn.f64	%fd103, %fd101, %fd102;
	mov.f64	%fd104, 0dBFE62E42FEFA39EF;
	fma.rn.f64	%fd105, %fd103, %fd104, %fd4;
	mov.f64	%fd106, 0dBC7ABC9E3B39803F;
	fma.rn.f64	%fd107, %fd103, %fd106, %fd105;
	mov.f64	%fd108, 0d3E928AF3FCA213EA;
	mov.f64	%fd109, 0d3E5ADE1569CE2BDF;
	fma.rn.f64	%fd110, %fd109, %fd107, %fd108;
	mov.f64	%fd111, 0d3EC71DEE62401315;
	fma.rn.f64	%fd112, %fd110, %fd107, %fd111;
	mov.f64	%fd113, 0d3EFA01997C89EB71;
	fma.rn.f64	%fd114, %fd112, %fd107, %fd113;
	mov.f64	%fd115, 0d3F2A01A014761F65;
	fma.rn.f64	%fd116, %fd114, %fd107, %fd115;
	mov.f64	%fd117, 0d3F56C16C1852B7AF;
	fma.rn.f64	%fd118, %fd116, %fd107, %fd117;
	mov.f64	%fd119, 0d3F81111111122322;
	fma.rn.f64	%fd120, %fd118, %fd107, %fd119;
	mov.f64	%fd121, 0d3FA55555555502A1;
	fma.rn.f64	%fd122, %fd120, %fd107, %fd121;
	mov.f64	%fd123, 0d3FC5555555555511;
	fma.rn.f64	%fd124, %fd122, %fd107, %fd123;
	mov.f64	%fd125, 0d3FE000000000000B;
	fma.rn.f64	%fd126, %fd124, %fd107, %fd125;
	fma.rn.f64	%fd127, %fd126, %fd107, %fd15;
	fma.rn.f64	%fd128, %fd127, %fd107, %fd15;
	{
	.reg .b32 %temp;
	mov.b64	{%r14, %temp}, %fd128;
	}
	{
	.reg .b32 %temp;
	mov.b64	{%temp, %r15}, %fd128;
	}
	shl.b32	%r33, %r13, 20;
	add.s32	%r34, %r15, %r33;
	mov.b64	%fd137, {%r14, %r34};
	{
	.reg .b32 %temp;
	mov.b64	{%temp, %r35}, %fd4;
	}
	mov.b32	%f2, %r35;
	abs.f32	%f1, %f2;
	setp.lt.f32	%p4, %f1, 0f4086232B;
	@%p4 bra	$L__BB1_7;
	setp.lt.f64	%p5, %fd4, 0d0000000000000000;
	add.f64	%fd129, %fd4, 0d7FF0000000000000;
	selp.f64	%fd137, 0d0000000000000000, %fd129, %p5;
	setp.geu.f32	%p6, %f1, 0f40874800;
	@%p6 bra	$L__BB1_7;
	mov.f64	%fd135, 0d4338000000000000;
	mov.f64	%fd134, 0d3FF71547652B82FE;
	fma.rn.f64	%fd133, %fd4, %fd134, %fd135;
	{
	.reg .b32 %temp;
	mov.b64	{%r45, %temp}, %fd133;
	}
	shr.u32	%r36, %r45, 31;
	add.s32	%r37, %r45, %r36;
	shr.s32	%r38, %r37, 1;
	shl.b32	%r39, %r38, 20;
	add.s32	%r40, %r15, %r39;
	mov.b64	%fd130, {%r14, %r40};
	sub.s32	%r41, %r45, %r38;
	shl.b32	%r42, %r41, 20;
	add.s32	%r43, %r42, 1072693248;
	mov.u32	%r44, 0;
	mov.b64	%fd131, {%r44, %r43};
	mul.f64	%fd137, %fd130, %fd131;
$L__BB1_7:
	abs.f64	%fd132, %fd137;
	setp.eq.f64	%p7, %fd132, 0d7FF0000000000000;
	@%p7 bra	$L__BB1_9;
	fma.rn.f64	%fd137, %fd137, %fd5, %fd137;
$L__BB1_9:
	st.param.f64	[func_retval0+0], %fd137;
	ret;
}
)";

// The same with nvcc's generic helper of |x| and the exponent, as nvcc emits it when the module
// calls pow with more than one exponent: its output for a module of t_pow and
// `t_pow2(double x, double* y) { *y = pow(x, 3.5); }`, t_pow2 left out. Around the call, the
// exponent is stored as the helper's second argument; the rest is the code above.
inline constexpr std::string_view libdevice_pow_xy_f64 = R"(.version 9.0
.target sm_80
.address_size 64
.func  (.param .b64 func_retval0) __internal_accurate_pow
(
	.param .b64 __internal_accurate_pow_param_0,
	.param .b64 __internal_accurate_pow_param_1
)
;
.visible .entry t_pow(
	.param .f64 t_pow_param_0,
	.param .u64 t_pow_param_1
)
{
	.reg .pred	%p<16>;
	.reg .b32	%r<15>;
	.reg .f64	%fd<20>;
	.reg .b64	%rd<3>;
	ld.param.f64	%fd9, [t_pow_param_0];
	ld.param.u64	%rd1, [t_pow_param_1];
	mov.f64	%fd10, 0d4004000000000000;
	{
	.reg .b32 %temp;
	mov.b64	{%temp, %r1}, %fd10;
	}
	and.b32 	%r2, %r1, 2146435072;
	setp.eq.s32	%p2, %r2, 1074790400;
	abs.f64	%fd1, %fd9;
	{ // callseq 0, 0
	.reg .b32 temp_param_reg;
	.param .b64 param0;
	st.param.f64	[param0+0], %fd1;
	.param .b64 param1;
	st.param.f64	[param1+0], 0d4004000000000000;
	.param .b64 retval0;
	call.uni (retval0),
	__internal_accurate_pow,
	(
	param0,
	param1
	);
	ld.param.f64	%fd19, [retval0+0];
	} // callseq 0
	{
	.reg .b32 %temp;
	mov.b64	{%temp, %r3}, %fd9;
	}
	setp.lt.s32	%p3, %r3, 0;
	and.pred 	%p1, %p3, %p2;
	setp.eq.f64	%p4, %fd9, 0d0000000000000000;
	@%p4 bra	$L__BB0_4;
	bra.uni	$L__BB0_1;
$L__BB0_4:
	selp.b32	%r4, %r3, 0, %p2;
	mov.u32	%r5, 0;
	or.b32 	%r6, %r4, 2146435072;
	setp.lt.s32	%p8, %r1, 0;
	selp.b32	%r7, %r6, %r4, %p8;
	mov.b64	%fd19, {%r5, %r7};
	bra.uni	$L__BB0_5;
$L__BB0_1:
	setp.gt.s32	%p5, %r3, -1;
	@%p5 bra	$L__BB0_5;
	mov.f64	%fd11, 0d4004000000000000;
	cvt.rzi.f64.f64	%fd12, %fd11;
	setp.eq.f64	%p6, %fd12, 0d4004000000000000;
	neg.f64	%fd13, %fd19;
	selp.f64	%fd19, %fd13, %fd19, %p1;
	@%p6 bra	$L__BB0_5;
	mov.f64	%fd19, 0dFFF8000000000000;
$L__BB0_5:
	add.f64	%fd15, %fd9, 0d4004000000000000;
	{
	.reg .b32 %temp;
	mov.b64	{%temp, %r8}, %fd15;
	}
	and.b32 	%r9, %r8, 2146435072;
	setp.ne.s32	%p9, %r9, 2146435072;
	@%p9 bra	$L__BB0_10;
	setp.gtu.f64	%p10, %fd1, 0d7FF0000000000000;
	@%p10 bra	$L__BB0_9;
	bra.uni	$L__BB0_7;
$L__BB0_9:
	mov.f64	%fd16, 0d4004000000000000;
	add.rn.f64	%fd19, %fd9, %fd16;
	bra.uni	$L__BB0_10;
$L__BB0_7:
	setp.neu.f64	%p11, %fd1, 0d7FF0000000000000;
	@%p11 bra	$L__BB0_10;
	setp.gt.s32	%p12, %r1, -1;
	selp.b32	%r10, 2146435072, 0, %p12;
	mov.u32	%r11, 0;
	and.b32 	%r12, %r1, 2147483647;
	setp.ne.s32	%p13, %r12, 1071644672;
	and.pred 	%p14, %p13, %p1;
	or.b32 	%r13, %r10, -2147483648;
	selp.b32	%r14, %r13, %r10, %p14;
	mov.b64	%fd19, {%r11, %r14};
$L__BB0_10:
	setp.eq.f64	%p15, %fd9, 0d3FF0000000000000;
	selp.f64	%fd17, 0d3FF0000000000000, %fd19, %p15;
	cvta.to.global.u64	%rd2, %rd1;
	st.global.f64	[%rd2], %fd17;
	ret;
}
.func  (.param .b64 func_retval0) __internal_accurate_pow(
	.param .b64 __internal_accurate_pow_param_0,
	.param .b64 __internal_accurate_pow_param_1
)
{
	.reg .pred	%p<8>;
	.reg .f32	%f<3>;
	.reg .b32	%r<50>;
	.reg .f64	%fd<139>;
	ld.param.f64	%fd12, [__internal_accurate_pow_param_0];
	ld.param.f64	%fd13, [__internal_accurate_pow_param_1];
	{
	.reg .b32 %temp;
	mov.b64	{%temp, %r47}, %fd12;
	}
	{
	.reg .b32 %temp;
	mov.b64	{%r46, %temp}, %fd12;
	}
	shr.u32	%r48, %r47, 20;
	setp.ne.s32	%p1, %r48, 0;
	@%p1 bra	$L__BB2_2;
	mul.f64	%fd14, %fd12, 0d4350000000000000;
	{
	.reg .b32 %temp;
	mov.b64	{%temp, %r47}, %fd14;
	}
	{
	.reg .b32 %temp;
	mov.b64	{%r46, %temp}, %fd14;
	}
	shr.u32	%r16, %r47, 20;
	add.s32	%r48, %r16, -54;
$L__BB2_2:
	add.s32	%r49, %r48, -1023;
	and.b32 	%r17, %r47, -2146435073;
	or.b32 	%r18, %r17, 1072693248;
	mov.b64	%fd136, {%r46, %r18};
	setp.lt.u32	%p2, %r18, 1073127583;
	@%p2 bra	$L__BB2_4;
	{
	.reg .b32 %temp;
	mov.b64	{%r19, %temp}, %fd136;
	}
	{
	.reg .b32 %temp;
	mov.b64	{%temp, %r20}, %fd136;
	}
	add.s32	%r21, %r20, -1048576;
	mov.b64	%fd136, {%r19, %r21};
	add.s32	%r49, %r48, -1022;
$L__BB2_4:
	add.f64	%fd15, %fd136, 0d3FF0000000000000;
	mov.f64	%fd16, 0d3FF0000000000000;
	rcp.approx.ftz.f64	%fd17, %fd15;
	neg.f64	%fd18, %fd15;
	fma.rn.f64	%fd19, %fd18, %fd17, %fd16;
	fma.rn.f64	%fd20, %fd19, %fd19, %fd19;
	fma.rn.f64	%fd21, %fd20, %fd17, %fd17;
	add.f64	%fd22, %fd136, 0dBFF0000000000000;
	mul.f64	%fd23, %fd22, %fd21;
	fma.rn.f64	%fd24, %fd22, %fd21, %fd23;
	mul.f64	%fd25, %fd24, %fd24;
	mov.f64	%fd26, 0d3ED0F5D241AD3B5A;
	mov.f64	%fd27, 0d3EB0F5FF7D2CAFE2;
	fma.rn.f64	%fd28, %fd27, %fd25, %fd26;
	mov.f64	%fd29, 0d3EF3B20A75488A3F;
	fma.rn.f64	%fd30, %fd28, %fd25, %fd29;
	mov.f64	%fd31, 0d3F1745CDE4FAECD5;
	fma.rn.f64	%fd32, %fd30, %fd25, %fd31;
	mov.f64	%fd33, 0d3F3C71C7258A578B;
	fma.rn.f64	%fd34, %fd32, %fd25, %fd33;
	mov.f64	%fd35, 0d3F6249249242B910;
	fma.rn.f64	%fd36, %fd34, %fd25, %fd35;
	mov.f64	%fd37, 0d3F89999999999DFB;
	fma.rn.f64	%fd38, %fd36, %fd25, %fd37;
	sub.f64	%fd39, %fd22, %fd24;
	add.f64	%fd40, %fd39, %fd39;
	neg.f64	%fd41, %fd24;
	fma.rn.f64	%fd42, %fd41, %fd22, %fd40;
	mul.f64	%fd43, %fd21, %fd42;
	fma.rn.f64	%fd44, %fd25, %fd38, 0d3FB5555555555555;
	mov.f64	%fd45, 0d3FB5555555555555;
	sub.f64	%fd46, %fd45, %fd44;
	fma.rn.f64	%fd47, %fd25, %fd38, %fd46;
	add.f64	%fd48, %fd47, 0d0000000000000000;
	add.f64	%fd49, %fd48, 0dBC46A4CB00B9E7B0;
	add.f64	%fd50, %fd44, %fd49;
	sub.f64	%fd51, %fd44, %fd50;
	add.f64	%fd52, %fd49, %fd51;
	mul.rn.f64	%fd53, %fd24, %fd24;
	neg.f64	%fd54, %fd53;
	fma.rn.f64	%fd55, %fd24, %fd24, %fd54;
	{
	.reg .b32 %temp;
	mov.b64	{%r22, %temp}, %fd43;
	}
	{
	.reg .b32 %temp;
	mov.b64	{%temp, %r23}, %fd43;
	}
	add.s32	%r24, %r23, 1048576;
	mov.b64	%fd56, {%r22, %r24};
	fma.rn.f64	%fd57, %fd24, %fd56, %fd55;
	mul.rn.f64	%fd58, %fd53, %fd24;
	neg.f64	%fd59, %fd58;
	fma.rn.f64	%fd60, %fd53, %fd24, %fd59;
	fma.rn.f64	%fd61, %fd53, %fd43, %fd60;
	fma.rn.f64	%fd62, %fd57, %fd24, %fd61;
	mul.rn.f64	%fd63, %fd50, %fd58;
	neg.f64	%fd64, %fd63;
	fma.rn.f64	%fd65, %fd50, %fd58, %fd64;
	fma.rn.f64	%fd66, %fd50, %fd62, %fd65;
	fma.rn.f64	%fd67, %fd52, %fd58, %fd66;
	add.f64	%fd68, %fd63, %fd67;
	sub.f64	%fd69, %fd63, %fd68;
	add.f64	%fd70, %fd67, %fd69;
	add.f64	%fd71, %fd24, %fd68;
	sub.f64	%fd72, %fd24, %fd71;
	add.f64	%fd73, %fd68, %fd72;
	add.f64	%fd74, %fd70, %fd73;
	add.f64	%fd75, %fd43, %fd74;
	add.f64	%fd76, %fd71, %fd75;
	sub.f64	%fd77, %fd71, %fd76;
	add.f64	%fd78, %fd75, %fd77;
	xor.b32 	%r25, %r49, -2147483648;
	mov.u32	%r26, -2147483648;
	mov.u32	%r27, 1127219200;
	mov.b64	%fd79, {%r25, %r27};
	mov.b64	%fd80, {%r26, %r27};
	sub.f64	%fd81, %fd79, %fd80;
	mov.f64	%fd82, 0d3FE62E42FEFA39EF;
	fma.rn.f64	%fd83, %fd81, %fd82, %fd76;
	neg.f64	%fd84, %fd81;
	fma.rn.f64	%fd85, %fd84, %fd82, %fd83;
	sub.f64	%fd86, %fd85, %fd76;
	sub.f64	%fd87, %fd78, %fd86;
	mov.f64	%fd88, 0d3C7ABC9E3B39803F;
	fma.rn.f64	%fd89, %fd81, %fd88, %fd87;
	add.f64	%fd90, %fd83, %fd89;
	sub.f64	%fd91, %fd83, %fd90;
	add.f64	%fd92, %fd89, %fd91;
	{
	.reg .b32 %temp;
	mov.b64	{%temp, %r28}, %fd13;
	}
	shl.b32	%r29, %r28, 1;
	setp.gt.u32	%p3, %r29, -33554433;
	and.b32 	%r30, %r28, -15728641;
	selp.b32	%r31, %r30, %r28, %p3;
	{
	.reg .b32 %temp;
	mov.b64	{%r32, %temp}, %fd13;
	}
	mov.b64	%fd93, {%r32, %r31};
	mul.rn.f64	%fd94, %fd90, %fd93;
	neg.f64	%fd95, %fd94;
	fma.rn.f64	%fd96, %fd90, %fd93, %fd95;
	fma.rn.f64	%fd97, %fd92, %fd93, %fd96;
	add.f64	%fd4, %fd94, %fd97;
	sub.f64	%fd98, %fd94, %fd4;
	add.f64	%fd5, %fd97, %fd98;
	mov.f64	%fd99, 0d4338000000000000;
	mov.f64	%fd100, 0d3FF71547652B82FE;
	fma.rn.f64	%fd101, %fd4, %fd100, %fd99;
	{
	.reg .b32 %temp;
	mov.b64	{%r13, %temp}, %fd101;
	}
	mov.f64	%fd102, 0dC338000000000000;
	add.rn.f64	%fd103, %fd101, %fd102;
	mov.f64	%fd104, 0dBFE62E42FEFA39EF;
	fma.rn.f64	%fd105, %fd103, %fd104, %fd4;
	mov.f64	%fd106, 0dBC7ABC9E3B39803F;
	fma.rn.f64	%fd107, %fd103, %fd106, %fd105;
	mov.f64	%fd108, 0d3E928AF3FCA213EA;
	mov.f64	%fd109, 0d3E5ADE1569CE2BDF;
	fma.rn.f64	%fd110, %fd109, %fd107, %fd108;
	mov.f64	%fd111, 0d3EC71DEE62401315;
	fma.rn.f64	%fd112, %fd110, %fd107, %fd111;
	mov.f64	%fd113, 0d3EFA01997C89EB71;
	fma.rn.f64	%fd114, %fd112, %fd107, %fd113;
	mov.f64	%fd115, 0d3F2A01A014761F65;
	fma.rn.f64	%fd116, %fd114, %fd107, %fd115;
	mov.f64	%fd117, 0d3F56C16C1852B7AF;
	fma.rn.f64	%fd118, %fd116, %fd107, %fd117;
	mov.f64	%fd119, 0d3F81111111122322;
	fma.rn.f64	%fd120, %fd118, %fd107, %fd119;
	mov.f64	%fd121, 0d3FA55555555502A1;
	fma.rn.f64	%fd122, %fd120, %fd107, %fd121;
	mov.f64	%fd123, 0d3FC5555555555511;
	fma.rn.f64	%fd124, %fd122, %fd107, %fd123;
	mov.f64	%fd125, 0d3FE000000000000B;
	fma.rn.f64	%fd126, %fd124, %fd107, %fd125;
	fma.rn.f64	%fd127, %fd126, %fd107, %fd16;
	fma.rn.f64	%fd128, %fd127, %fd107, %fd16;
	{
	.reg .b32 %temp;
	mov.b64	{%r14, %temp}, %fd128;
	}
	{
	.reg .b32 %temp;
	mov.b64	{%temp, %r15}, %fd128;
	}
	shl.b32	%r33, %r13, 20;
	add.s32	%r34, %r15, %r33;
	mov.b64	%fd137, {%r14, %r34};
	{
	.reg .b32 %temp;
	mov.b64	{%temp, %r35}, %fd4;
	}
	mov.b32	%f2, %r35;
	abs.f32	%f1, %f2;
	setp.lt.f32	%p4, %f1, 0f4086232B;
	@%p4 bra	$L__BB2_7;
	setp.lt.f64	%p5, %fd4, 0d0000000000000000;
	add.f64	%fd129, %fd4, 0d7FF0000000000000;
	selp.f64	%fd137, 0d0000000000000000, %fd129, %p5;
	setp.geu.f32	%p6, %f1, 0f40874800;
	@%p6 bra	$L__BB2_7;
	mov.f64	%fd135, 0d4338000000000000;
	mov.f64	%fd134, 0d3FF71547652B82FE;
	fma.rn.f64	%fd133, %fd4, %fd134, %fd135;
	{
	.reg .b32 %temp;
	mov.b64	{%r45, %temp}, %fd133;
	}
	shr.u32	%r36, %r45, 31;
	add.s32	%r37, %r45, %r36;
	shr.s32	%r38, %r37, 1;
	shl.b32	%r39, %r38, 20;
	add.s32	%r40, %r15, %r39;
	mov.b64	%fd130, {%r14, %r40};
	sub.s32	%r41, %r45, %r38;
	shl.b32	%r42, %r41, 20;
	add.s32	%r43, %r42, 1072693248;
	mov.u32	%r44, 0;
	mov.b64	%fd131, {%r44, %r43};
	mul.f64	%fd137, %fd130, %fd131;
$L__BB2_7:
	abs.f64	%fd132, %fd137;
	setp.eq.f64	%p7, %fd132, 0d7FF0000000000000;
	@%p7 bra	$L__BB2_9;
	fma.rn.f64	%fd137, %fd137, %fd5, %fd137;
$L__BB2_9:
	st.param.f64	[func_retval0+0], %fd137;
	ret;
}
)";

}  // namespace gpueq::ptx::detail
