// make_update_program and check_update_program: a program that passes runs without
// reading an undefined register, so backends never re-check it.

#include "core/ops/update_program.h"

#include <bitset>
#include <string>
#include <utility>

#include "core/error.h"

namespace rensa {

namespace ops {
namespace {

bool is_state(const UpdateProgram& p, uint8_t r) { return r >= kUpdateState0 && r < kUpdateState0 + p.n_states(); }
bool is_temp(uint8_t r) { return r >= kUpdateTemp0 && r < kUpdateRegisters; }

// One operand of instruction `i`: a readable register or a scalar in range.
void check_operand(const UpdateProgram& p, int i, uint8_t r, const std::bitset<kUpdateRegisters>& written) {
    if (r >= kUpdateScalar0) {
        RENSA_CHECK(r - kUpdateScalar0 < p.n_scalars, ValueError, "update program '", p.name, "': instruction ", i,
                    " reads scalar ", r - kUpdateScalar0, " but the program has ", p.n_scalars, " scalars");
        return;
    }
    RENSA_CHECK(r == kUpdateParam || r == kUpdateGrad || is_state(p, r) || is_temp(r), ValueError, "update program '",
                p.name, "': instruction ", i, " reads register ", int{r}, ", which is neither param, grad, one of its ",
                p.n_states(), " states nor a temporary");
    RENSA_CHECK(!is_temp(r) || written[r], ValueError, "update program '", p.name, "': instruction ", i,
                " reads temporary ", r - kUpdateTemp0, " before any instruction writes it");
}

}  // namespace

void check_update_program(const UpdateProgram& p) {
    RENSA_CHECK(p.n_states() <= kUpdateMaxStates, ValueError, "update program '", p.name, "': ", p.n_states(),
                " states, at most ", kUpdateMaxStates, " are supported");
    RENSA_CHECK(p.n_scalars >= 0 && p.n_scalars <= kUpdateMaxScalars, ValueError, "update program '", p.name,
                "': ", p.n_scalars, " scalars, expected 0 to ", kUpdateMaxScalars);
    RENSA_CHECK(p.size >= 0 && p.size <= kUpdateMaxInstructions, ValueError, "update program '", p.name, "': ", p.size,
                " instructions, expected 0 to ", kUpdateMaxInstructions);
    std::bitset<kUpdateRegisters> written;
    for (int i = 0; i < p.size; ++i) {
        const UpdateInstruction& in = p.code[static_cast<size_t>(i)];
        const int arity = update_op_arity(in.op);
        RENSA_CHECK(arity > 0, ValueError, "update program '", p.name, "': instruction ", i, " has an unknown op (",
                    int{static_cast<uint8_t>(in.op)}, ")");
        const uint8_t operands[3] = {in.a, in.b, in.c};
        for (int k = 0; k < arity; ++k) check_operand(p, i, operands[k], written);
        RENSA_CHECK(in.dst == kUpdateParam || is_state(p, in.dst) || is_temp(in.dst), ValueError, "update program '",
                    p.name, "': instruction ", i, " writes register ", int{in.dst}, "; only param, one of its ",
                    p.n_states(), " states or a temporary may be written");
        written.set(in.dst);
    }
}

std::shared_ptr<const UpdateProgram> make_update_program(std::string name, std::vector<std::string> state_names,
                                                         int n_scalars, std::vector<UpdateInstruction> code,
                                                         decltype(UpdateProgram::host) host) {
    auto p = std::make_shared<UpdateProgram>();
    p->host = host;
    p->name = std::move(name);
    p->state_names = std::move(state_names);
    p->n_scalars = n_scalars;
    RENSA_CHECK(code.size() <= static_cast<size_t>(kUpdateMaxInstructions), ValueError, "update program '", p->name,
                "': ", code.size(), " instructions, at most ", kUpdateMaxInstructions, " are supported");
    for (const UpdateInstruction& in : code) p->code[static_cast<size_t>(p->size++)] = in;
    check_update_program(*p);
    return p;
}

}  // namespace ops
}  // namespace rensa
