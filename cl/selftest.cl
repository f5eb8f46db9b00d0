/* selftest: the loop probe of the device self-test (host side: src/engine/selftest.rs).
 *
 * Every scan kernel loops over the columns of a subject, so a device that ends long
 * loops early returns wrong scores for long subjects while passing tests on short
 * ones. Mesa 22.3's rusticl on llvmpipe does exactly that: it stops any loop after
 * 65,535 iterations without a word (a count to 100,000 returns 65,535; a nested loop
 * of 1,000 x 100 returns 64,251).
 *
 *   out[g] = the number of iterations of a loop of n + g steps, and of n / 100 outer
 *            times 100 inner steps (out[G + g]).
 */
__kernel void selftest_loop(const int n, __global int *out)
{
    const int g = get_global_id(0);
    const int G = get_global_size(0);
    int count = 0;
    for (int i = 0; i < n + g; i++)
        count++;
    out[g] = count;
    int nested = 0;
    for (int j = 0; j < n / 100; j++)
        for (int i = 0; i < 100; i++)
            nested++;
    out[G + g] = nested;
}
