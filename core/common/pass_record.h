#pragma once
// The uniform record a pass manager keeps after every pass, for both compilers. Views list these in the
// Pipeline dock; the IR view shows `irText`; the CLI prints them with --json and --dump-dir.

#include <string>
#include <vector>

namespace spyglass {

struct PassRecord {
    std::string name;          // e.g. "insert_restickify"
    std::string description;   // what the pass does in general, one line
    bool changed = false;      // did the IR change?
    std::string summary;       // what it did this time: "inserted 2 restickify ops moving 131 072 elements"
    double wallMs = 0.0;       // measured wall time of the pass
    std::string irText;        // canonical text of the IR after the pass
};

// "  0.12 ms" style helpers live with the printers; this keeps the struct plain.
using PassRecords = std::vector<PassRecord>;

}  // namespace spyglass
