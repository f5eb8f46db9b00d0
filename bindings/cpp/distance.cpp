// distance: an all-pairs distance matrix from C++ through clsw.hpp.
//
//   distance
//
// Four aligned sequences, metric IBS (which implies the compared counts): the sites,
// the differences, the compared sites and the IBS values, one line per row.
// Compared with the Rust API's results by tests/distance_capi.rs.
//
// Build: c++ -std=c++17 distance.cpp $(pkg-config --cflags --libs clsw) -Wl,-rpath,$(pkg-config --variable=libdir clsw) -o distance
#include "clsw.hpp"

#include <cstdio>

int main() {
    try {
        clsw::Engine engine;
        clsw::DistanceOptions options;
        options.metric = CLSW_METRIC_IBS;
        auto d = clsw::DistanceResult::aligned(engine, {"ACGTACGTAC", "ACGTTCGTAA", "ACG-ACGNAC", "TCGTACGTAC"},
                                               &options);
        const size_t n = d.count();
        auto [sites, considered] = d.sites();
        std::printf("sites\t%zu\t%llu\t%llu\n", n, static_cast<unsigned long long>(sites),
                    static_cast<unsigned long long>(considered));
        auto diff = d.matrix();
        auto compared = d.compared();
        auto values = d.values();
        for (size_t i = 0; i < n; i++) {
            std::printf("row\t%zu", i);
            for (size_t j = 0; j < n; j++)
                std::printf("\t%u/%u/%.17g", diff[i * n + j], compared[i * n + j], values[i * n + j]);
            std::printf("\n");
        }
    } catch (const clsw::error &e) {
        std::fprintf(stderr, "distance: %s\n", e.what());
        return 1;
    }
    return 0;
}
