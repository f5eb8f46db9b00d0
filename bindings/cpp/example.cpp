// example: clsw from C++ through the RAII wrapper clsw.hpp.
//
//   example DB.fasta QUERIES.fasta
//
// For every query: its hits (with CIGARs), a summary of every subject's score, and the
// pairwise alignment with the best hit; then a failure caught as a clsw::error. The
// lines are tab-separated and meant to be compared with the Rust API's results
// (tests/scan_capi.rs does).
//
// Build: c++ -std=c++17 example.cpp $(pkg-config --cflags --libs clsw) -Wl,-rpath,$(pkg-config --variable=libdir clsw) -o example
#include "clsw.hpp"

#include <algorithm>
#include <cstdio>
#include <numeric>

int main(int argc, char **argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: example DB.fasta QUERIES.fasta\n");
        return 2;
    }
    try {
        clsw::Engine engine; // CLSW_DEVICE, else "auto"
        std::fprintf(stderr, "clsw %s on %s\n", clsw::version().c_str(), engine.describe().c_str());
        auto db = clsw::Database::fasta(argv[1], CLSW_ALPHABET_PROTEIN);
        auto queries = clsw::Database::fasta(argv[2], CLSW_ALPHABET_PROTEIN);
        auto scoring = clsw::Scoring::builtin("BLOSUM62", 11, 1);

        clsw::SearchOptions options;
        options.max_hits = 5;
        options.cigar = CLSW_CIGAR_EXTENDED;
        clsw::Searcher searcher(engine, scoring, db, &options);
        // The same search in the glocal mode (glsearch36's: the query whole).
        clsw::Searcher glocal(engine, scoring.with_mode(CLSW_MODE_GLOCAL), db, &options);

        for (size_t q = 0; q < queries.size(); q++) {
            const std::string id = queries.id(q), letters = queries.sequence(q);
            clsw::SearchResult r = searcher.search(letters, id);
            for (const clsw::Hit &h : r.hits) {
                std::printf("hit\t%s\t%zu\t%s\t%d\t%zu\t%zu\t%zu\t%zu\t%zu\t%zu\t%s\t%.6e\n", id.c_str(), h.subject,
                            h.subject_id.c_str(), h.score, h.query_start, h.query_end, h.subject_start,
                            h.subject_end, h.identities, h.length, h.cigar.c_str(), h.evalue);
            }
            std::vector<int32_t> scores = searcher.scores(letters);
            long long sum = std::accumulate(scores.begin(), scores.end(), 0LL);
            int32_t best = scores.empty() ? 0 : *std::max_element(scores.begin(), scores.end());
            std::printf("scores\t%s\t%zu\t%lld\t%d\n", id.c_str(), scores.size(), sum, best);
            clsw::SearchResult g = glocal.search(letters, id);
            if (!g.hits.empty()) {
                std::printf("glocal\t%s\t%zu\t%d\t%zu\t%zu\n", id.c_str(), g.hits[0].subject, g.hits[0].score,
                            g.hits[0].query_start, g.hits[0].query_end);
            }
            if (!r.hits.empty()) {
                clsw::Alignment a = clsw::align(scoring, letters, db.sequence(r.hits[0].subject));
                std::printf("align\t%s\t%d\t%zu\t%zu\t%s\n", id.c_str(), a.score, a.query_start, a.subject_start,
                            a.cigar.c_str());
            }
        }

        try {
            searcher.search("MKV1L", "bad");
        } catch (const clsw::error &e) {
            std::printf("error\t%d\t%s\n", static_cast<int>(e.status()), e.message().c_str());
        }
    } catch (const clsw::error &e) {
        std::fprintf(stderr, "example: %s\n", e.what());
        return 1;
    }
    return 0;
}
