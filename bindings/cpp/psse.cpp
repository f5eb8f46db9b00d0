// psse: pairwise statistical significance from C++ through clsw.hpp.
//
//   psse
//
// One pair with clsw::psse, then every pair of two queries x two subjects with
// clsw::psse_many (200 shuffles, seed 7, native path unless CLSW_DEVICE says otherwise).
// Tab-separated lines, compared with the Rust API's results by tests/psse_capi.rs.
//
// Build: c++ -std=c++17 psse.cpp $(pkg-config --cflags --libs clsw) -Wl,-rpath,$(pkg-config --variable=libdir clsw) -o psse
#include "clsw.hpp"

#include <cstdio>

static void print(const char *tag, const clsw::PsseResult &r) {
    std::printf("%s\t%zu\t%zu\t%d\t%d\t%.17g\t%.17g\t%.17g\t%.17g\t%zu\n", tag, r.query, r.subject,
                static_cast<int>(r.status), r.score, r.lambda, r.k, r.p_value, r.e_value, r.shuffle_scores.size());
}

int main() {
    try {
        clsw::Engine engine;
        auto scoring = clsw::Scoring::builtin("BLOSUM50", 10, 2);
        clsw::PsseOptions options;
        options.shuffles = 200;
        options.seed = 7;
        print("pair", clsw::psse(engine, scoring, "MKTAYIAKQRQISFVKSHFSRQ", "MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQ",
                                 &options));
        options.keep_scores = 1;
        std::vector<std::string> queries{"MKTAYIAKQRQISFVKSHFSRQ", "GSHMLEDPVDAFQGW"};
        std::vector<std::string> subjects{"MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQ", "W"};
        for (const clsw::PsseResult &r : clsw::psse_many(engine, scoring, queries, subjects, &options))
            print("many", r);
    } catch (const clsw::error &e) {
        std::fprintf(stderr, "psse: %s\n", e.what());
        return 1;
    }
    return 0;
}
