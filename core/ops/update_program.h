#pragma once
// Building and checking UpdatePrograms (core/kernels.h, Note [Update programs]): the
// registers by name, and make_update_program, which checks a program once when an
// optimizer builds it.

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/kernels.h"
#include "core/ops/update_host.h"

namespace rensa::ops {

// The operands of an UpdateInstruction by name.
namespace update_registers {
inline constexpr uint8_t kParam = kUpdateParam;
inline constexpr uint8_t kGrad = kUpdateGrad;
constexpr uint8_t state(int i) { return static_cast<uint8_t>(kUpdateState0 + i); }
constexpr uint8_t temp(int i) { return static_cast<uint8_t>(kUpdateTemp0 + i); }
constexpr uint8_t scalar(int i) { return static_cast<uint8_t>(kUpdateScalar0 + i); }
}  // namespace update_registers

// The checked program `name` over the states `state_names` (at most kUpdateMaxStates) and
// n_scalars scalars; ValueError from check_update_program.
[[nodiscard]] std::shared_ptr<const UpdateProgram> make_update_program(std::string name,
                                                                       std::vector<std::string> state_names,
                                                                       int n_scalars,
                                                                       std::vector<UpdateInstruction> code,
                                                                       decltype(UpdateProgram::host) host = nullptr);

// The same from a compile-time code, whose `host` is that code compiled for the CPU
// (core/ops/update_host.h, Note [Programs compiled for the host]).
template <StaticUpdateCode Code>
[[nodiscard]] std::shared_ptr<const UpdateProgram> make_update_program(std::string name,
                                                                       std::vector<std::string> state_names,
                                                                       int n_scalars) {
    std::vector<UpdateInstruction> code(Code.code.begin(),
                                        Code.code.begin() + std::min(Code.size, kUpdateMaxInstructions));
    RENSA_CHECK(Code.size <= kUpdateMaxInstructions, ValueError, "update program '", name, "': ", Code.size,
                " instructions, at most ", kUpdateMaxInstructions, " are supported");
    return make_update_program(std::move(name), std::move(state_names), n_scalars, std::move(code), &host_update<Code>);
}

// ValueError naming the program and the instruction unless: the counts are within the
// limits, every op is known, every dst is param, a state or a temporary, every operand
// names grad, param, a state, a scalar or a temporary written by an earlier instruction.
void check_update_program(const UpdateProgram& program);

}  // namespace rensa::ops
