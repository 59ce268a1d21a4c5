#pragma once
// The special functions behind the elementwise rows lgamma, digamma, polygamma, zeta,
// log_ndtr, ndtri, erfinv and erfcinv (core/elementwise_unary.h, core/elementwise_binary.h), in double on host
// and device. See Note [Special functions].
//
// Note [Special functions]: each row computes in double and rounds once to its compute type,
// so float32 results are as good as the type allows and both backends run the same formula;
// the formulas call only what CUDA's device math library also has (exp, log, log1p, erf,
// erfc, tan, pow, floor, lgamma).
// - lgamma: the C library's. On the host through lgamma_r, because lgamma writes the global
//   signgam, a data race once native loops run in parallel.
// - digamma: reflection psi(x) = psi(1 - x) - pi / tan(pi x) below 0, the recurrence
//   psi(x) = psi(x + 1) - 1 / x up to x >= 10, then the asymptotic series (error < 1e-15).
// - polygamma(n, x) = (-1)^(n+1) n! zeta(n + 1, x) for n >= 1 and digamma for n = 0, with the
//   Hurwitz zeta by Euler-Maclaurin summation (Cephes' method). It is a binary row because
//   Chainer's F.polygamma takes the order as an array; digamma's gradient is order 1 and
//   order n's is order n + 1. Orders that are negative or not integers give NaN (scipy).
// - log_ndtr: log(erfcx(-x / sqrt 2) / 2) - x^2 / 2 below -1, which never underflows, and
//   log1p(-ndtr(-x)) above, which keeps the digits of values near 0.
// - ndtri and erfinv invert erfc by Newton's method on log erfc(y) = log erfcx(y) - y^2: the
//   function is concave and decreasing, and the start sqrt(-log q) lies at or above the root
//   (erfc(y) <= exp(-y^2)), so the iterates fall monotonically onto it. erfinv near 0 solves
//   erf(y) = x directly, where 1 - x would lose the digits of x. erfcinv(q) is the same
//   inversion of erfc on q <= 1 and its mirror -erfcinv(2 - q) above; for q in [0.5, 1.5]
//   1 - q is exact (Sterbenz), so it is erfinv(1 - q) there.
// - zeta(x, q) is the Hurwitz zeta of polygamma with scipy's domain: NaN for x < 1 and for a
//   negative non-integer q with x not an integer (q^-x is not real), infinity at x = 1.

#include <cmath>
#include <limits>

#include "core/host_device.h"

namespace rensa::special {

inline constexpr double kPi = 3.14159265358979323846;

RENSA_HOST_DEVICE inline double quiet_nan() { return std::numeric_limits<double>::quiet_NaN(); }
RENSA_HOST_DEVICE inline double infinity() { return std::numeric_limits<double>::infinity(); }

RENSA_HOST_DEVICE inline double log_gamma(double x) {
#if defined(__CUDA_ARCH__)
    return ::lgamma(x);
#else
    int sign = 0;
    return ::lgamma_r(x, &sign);
#endif
}

RENSA_HOST_DEVICE inline double digamma(double x) {
    if (x != x || x == -infinity()) return quiet_nan();
    if (x == infinity()) return x;
    if (x <= 0.0 && x == std::floor(x)) return x == 0.0 ? -std::copysign(infinity(), x) : quiet_nan();
    double shift = 0.0;
    if (x < 0.0) {
        shift = -kPi / std::tan(kPi * x);  // psi(x) = psi(1 - x) - pi / tan(pi x)
        x = 1.0 - x;
    }
    for (; x < 10.0; x += 1.0) shift -= 1.0 / x;
    const double r = 1.0 / (x * x);
    // Bernoulli terms B_2k / (2k x^2k), k = 1..6.
    const double series =
        r * (1.0 / 12 - r * (1.0 / 120 - r * (1.0 / 252 - r * (1.0 / 240 - r * (1.0 / 132 - r * (691.0 / 32760))))));
    return shift + std::log(x) - 0.5 / x - series;
}

// The Hurwitz zeta function sum_{k >= 0} (q + k)^-s for s > 1 (Cephes' zeta): direct terms
// until q + k >= 9 and the terms are small, then the Euler-Maclaurin tail with 12 Bernoulli terms.
RENSA_HOST_DEVICE inline double hurwitz_zeta(double s, double q) {
    // (2j)! / B_2j, j = 1..12.
    constexpr double kA[] = {12.0,
                             -720.0,
                             30240.0,
                             -1209600.0,
                             47900160.0,
                             -1.8924375803183791606e9,
                             7.47242496e10,
                             -2.950130727918164224e12,
                             1.1646782814350067249e14,
                             -4.5979787224074726105e15,
                             1.8152105401943546773e17,
                             -7.1661652561756670113e18};
    if (q <= 0.0 && q == std::floor(q)) return infinity();  // a pole of every term
    double sum = std::pow(q, -s), a = q, b = 0.0;
    for (int i = 0; i < 9 || a <= 9.0; ++i) {
        a += 1.0;
        b = std::pow(a, -s);
        sum += b;
        if (std::abs(b / sum) < 1e-17) return sum;
    }
    const double w = a;
    sum += b * w / (s - 1.0) - 0.5 * b;
    double fact = 1.0, k = 0.0;
    for (double term_a : kA) {
        fact *= s + k;
        b /= w;
        const double t = fact * b / term_a;
        sum += t;
        if (std::abs(t / sum) < 1e-17) break;
        k += 1.0;
        fact *= s + k;
        b /= w;
        k += 1.0;
    }
    return sum;
}

// scipy.special.zeta(x, q): the Hurwitz zeta with Cephes' domain rules.
RENSA_HOST_DEVICE inline double zeta(double x, double q) {
    if (x != x || q != q || x < 1.0) return quiet_nan();
    if (x == 1.0) return infinity();
    if (q <= 0.0) {
        if (q == std::floor(q)) return infinity();
        if (x != std::floor(x)) return quiet_nan();
    }
    return hurwitz_zeta(x, q);
}

RENSA_HOST_DEVICE inline double polygamma(double n, double x) {
    if (n != n || x != x || n < 0.0 || n != std::floor(n)) return quiet_nan();
    if (n == 0.0) return digamma(x);
    const double sign = std::fmod(n, 2.0) == 0.0 ? -1.0 : 1.0;  // (-1)^(n+1)
    return sign * std::exp(log_gamma(n + 1.0)) * hurwitz_zeta(n + 1.0, x);
}

// exp(y^2) erfc(y), the erfcx row's formula: past y = 25 (where exp(y^2) nears double's
// range) its asymptotic series 1 / (y sqrt(pi)) * (1 - 1/(2y^2) + 3/(4y^4) - ...), 6 terms.
RENSA_HOST_DEVICE inline double erfcx(double y) {
    if (y < 25.0) return std::exp(y * y) * std::erfc(y);
    const double r = 1.0 / (y * y);
    const double series = 1.0 - r * (0.5 - r * (0.75 - r * (1.875 - r * (6.5625 - r * 29.53125))));
    return 0.56418958354775628695 / y * series;  // 1 / sqrt(pi)
}

RENSA_HOST_DEVICE inline double log_ndtr(double x) {
    constexpr double kInvSqrt2 = 0.70710678118654752440;
    if (x < -1.0) return std::log(0.5 * erfcx(-x * kInvSqrt2)) - 0.5 * x * x;
    return std::log1p(-0.5 * std::erfc(x * kInvSqrt2));
}

// The y >= 0 with erfc(y) = q, for q in (0, 1]. See Note [Special functions].
RENSA_HOST_DEVICE inline double inverse_erfc_upper(double q) {
    constexpr double kTwoOverSqrtPi = 1.12837916709551257390;
    const double log_q = std::log(q);
    double y = std::sqrt(-log_q);
    for (int i = 0; i < 100; ++i) {
        const double e = erfcx(y);
        const double step = (std::log(e) - y * y - log_q) * e / kTwoOverSqrtPi;  // g / -g'
        y += step;
        if (!(std::abs(step) > 1e-16 * y)) break;
    }
    return y;
}

RENSA_HOST_DEVICE inline double erfinv(double x) {
    if (x != x || x < -1.0 || x > 1.0) return quiet_nan();
    if (x == 1.0 || x == -1.0) return std::copysign(infinity(), x);
    if (std::abs(x) >= 0.5) return std::copysign(inverse_erfc_upper(1.0 - std::abs(x)), x);
    constexpr double kSqrtPiOver2 = 0.88622692545275801365;
    double y = kSqrtPiOver2 * x * (1.0 + kPi / 12.0 * x * x);  // two terms of the Maclaurin series
    for (int i = 0; i < 20; ++i) {
        const double step = (std::erf(y) - x) * kSqrtPiOver2 * std::exp(y * y);
        y -= step;
        if (!(std::abs(step) > 1e-16 * std::abs(y))) break;
    }
    return y;
}

// The y with erfc(y) = q, for q in [0, 2]; NaN outside.
RENSA_HOST_DEVICE inline double erfcinv(double q) {
    if (q != q || q < 0.0 || q > 2.0) return quiet_nan();
    if (q == 0.0) return infinity();
    if (q == 2.0) return -infinity();
    if (q >= 0.5 && q <= 1.5) return erfinv(1.0 - q);  // 1 - q is exact here
    if (q < 1.0) return inverse_erfc_upper(q);
    return -inverse_erfc_upper(2.0 - q);
}

// The standard normal quantile: ndtri(p) = -sqrt(2) erfcinv(2p).
RENSA_HOST_DEVICE inline double ndtri(double p) {
    constexpr double kSqrt2 = 1.41421356237309504880;
    if (p != p || p < 0.0 || p > 1.0) return quiet_nan();
    if (p == 0.0) return -infinity();
    if (p == 1.0) return infinity();
    if (p <= 0.5) return -kSqrt2 * inverse_erfc_upper(2.0 * p);
    return kSqrt2 * inverse_erfc_upper(2.0 * (1.0 - p));  // 1 - p is exact here
}

}  // namespace rensa::special
