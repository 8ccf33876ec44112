/* How far the C library's expf/logf are from the float64 result rounded to float32.
 *
 * For every float32 x of each binade [2^e, 2^(e+1)) (logf: every positive binade;
 * expf: x from -104 to 88, both signs), count the x where f(x) differs from
 * (float)f((double)x), and the worst distance, in float32 ULPs, of the float64
 * result from a float32 rounding midpoint among those x.  sampler/cfloat.py asks
 * the C library wherever float64 rounding may disagree; docs/cfloat.md has the
 * figures this printed.
 *
 *   gcc -O2 -fno-builtin -o /tmp/libm_scan bench/libm_scan.c -lm && /tmp/libm_scan
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static double midpoint_distance(double y) {
    uint64_t bits;
    memcpy(&bits, &y, sizeof bits);
    int64_t dropped = (int64_t)(bits & ((1ULL << 29) - 1));
    return fabs((double)(dropped - (1LL << 28))) / (double)(1LL << 29);
}

static void scan_binade(const char *name, int sign, int e, int is_log) {
    long bad = 0;
    double worst = 0;
    for (uint32_t m = 0; m < (1u << 23); ++m) {
        uint32_t bits = ((uint32_t)sign << 31) | ((uint32_t)e << 23) | m;
        float x;
        memcpy(&x, &bits, sizeof x);
        if (!is_log && (x < -104.0f || x > 88.0f)) continue;
        double d = is_log ? log((double)x) : exp((double)x);
        float c = is_log ? logf(x) : expf(x);
        if (c != (float)d && fabs(d) >= 1.1754944e-38) { /* normal results only */
            ++bad;
            double u = midpoint_distance(d);
            if (u > worst) worst = u;
        }
    }
    if (bad) printf("%s x in %s[2^%d, 2^%d): %ld differ, worst %.4f ULP from a midpoint\n",
                    name, sign ? "-" : "", e - 127, e - 126, bad, worst);
}

int main(void) {
    for (int e = 1; e < 255; ++e) scan_binade("logf", 0, e, 1);
    for (int e = 1; e < 134; ++e) { scan_binade("expf", 0, e, 0); scan_binade("expf", 1, e, 0); }
    return 0;
}
