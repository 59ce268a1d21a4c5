#pragma once
// Shared by the tests under tests/distributed: one communicator of each kind per process.

#include <map>
#include <string>

#include "distributed/communicator.h"

namespace rensa::testing {

// The process's communicator of kind `name` ("naive", "flat", "dummy"), created on first use
// (collective: every rank must ask for the same names in the same order).
inline const distributed::CommunicatorPtr& shared_comm(const std::string& name = "naive") {
    static std::map<std::string, distributed::CommunicatorPtr> comms;
    auto [it, inserted] = comms.try_emplace(name);
    if (inserted) it->second = distributed::create_communicator(name);
    return it->second;
}

}  // namespace rensa::testing
