// sw3: three-sequence local alignment from C++ through clsw.hpp.
//
//   sw3
//
// The score, end cell and alignment of one DNA triple (match 1, mismatch -1, linear
// gaps of 1: the seed's setting), every triple of four sequences ranked by score, and
// the SAX word of a short series. Compared with the Rust API's results by
// tests/sw3_capi.rs.
//
// Build: c++ -std=c++17 sw3.cpp $(pkg-config --cflags --libs clsw) -Wl,-rpath,$(pkg-config --variable=libdir clsw) -o sw3
#include "clsw.hpp"

#include <cstdio>

int main() {
    try {
        clsw::Engine engine;
        auto scoring = clsw::Scoring::match_mismatch(CLSW_ALPHABET_DNA, 1, -1, 0, 1);
        const char *a = "ACGTACGGT", *b = "GACGTACGG", *c = "ACGTTCGG";
        clsw::Sw3Score s = clsw::sw3_score(engine, scoring, a, b, c);
        std::printf("score\t%d\t%zu\t%zu\t%zu\n", s.score, s.end[0], s.end[1], s.end[2]);
        clsw::Sw3Alignment al = clsw::sw3_align(engine, scoring, a, b, c);
        std::printf("align\t%d\t%zu\t%zu\t%s\t%s\t%s\n", al.score, al.length, al.identities, al.row[0].c_str(),
                    al.row[1].c_str(), al.row[2].c_str());
        for (const clsw_sw3_row &r : clsw::sw3_batch(engine, scoring, {a, b, c, "TTACGTAC"}))
            std::printf("batch\t%zu\t%zu\t%zu\t%d\n", r.a, r.b, r.c, r.score);
        bool constant = true;
        std::printf("sax");
        for (uint8_t code : clsw::sax({1.0, 2.0, 3.0, 2.5, 0.5, -1.0, 4.0, 3.5}, 4, 4, &constant))
            std::printf("\t%d", code);
        std::printf("\t%d\n", constant ? 1 : 0);
    } catch (const clsw::error &e) {
        std::fprintf(stderr, "sw3: %s\n", e.what());
        return 1;
    }
    return 0;
}
