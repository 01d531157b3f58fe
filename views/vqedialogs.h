#pragma once
// The two dialogs of the Quantum menu: Run VQE (the recipe `spyglass-cli vqe` takes) and Open VQE Run (a run
// recorded in the session history, by the explorer or by the CLI).

#include "core/quantum/vqe.h"
#include "core/session/session_types.h"

#include <QString>

#include <optional>

class QWidget;

namespace spyglass::session {
class SessionStore;
}

namespace spyglass {

struct VqeRequest {
    quantum::VqeOptions options;
    QString hamiltonianFile;   // empty: the transverse-field Ising chain
};
// nullopt when cancelled.
std::optional<VqeRequest> askVqeRun(QWidget* parent);

// The recorded VQE runs of `store`, newest first, to pick one from; nullopt when cancelled or when there is none
// (then a message says how to make one).
std::optional<session::RowId> askRecordedVqeRun(QWidget* parent, session::SessionStore& store);

}  // namespace spyglass
