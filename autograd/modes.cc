#include "autograd/modes.h"

namespace rensa {

Config& global_config() {
    static Config defaults;
    return defaults;
}

Config& config() {
    thread_local Config current = global_config();
    return current;
}

}  // namespace rensa
