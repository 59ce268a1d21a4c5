#pragma once
// Small links for the Link machinery tests: a Linear-like link with member parameters and
// persistents, and a Chain subclass with member children and a ChainList inside.

#include <memory>
#include <optional>

#include "core/ops/creation.h"
#include "functions/connection.h"
#include "links/chain.h"
#include "links/initializers.h"
#include "links/link.h"

namespace rensa::links::testing {

class Toy : public Cloneable<Toy> {
public:
    Parameter W, b;
    Array avg;          // persistent array
    int64_t count = 0;  // persistent scalar: forward calls

    Toy(std::optional<int64_t> in_size, int64_t out_size) : out_size_{out_size} {
        std::optional<Shape> w_shape;
        if (in_size) w_shape = Shape{out_size, *in_size};
        register_param("W", &Toy::W, Parameter(std::make_shared<initializers::LeCunNormal>(), w_shape));
        register_param("b", &Toy::b, Parameter(initializers::constant(0), Shape{out_size}));
        avg = ops::zeros({out_size});
        register_persistent("avg", &Toy::avg);
        register_persistent("count", &Toy::count);
    }

    Variable forward(const Variable& x) override {
        if (!W.is_initialized()) W.initialize({out_size_, x.shape()[1]});
        ++count;
        return functions::linear(x, W, b);
    }

private:
    int64_t out_size_;
};

// l1 (lazy Toy), blocks (ChainList of two Toys), l2.
class Net : public Cloneable<Net, Chain> {
public:
    std::shared_ptr<Toy> l1, l2;
    std::shared_ptr<ChainList> blocks;

    Net() {
        register_link("l1", &Net::l1, std::make_shared<Toy>(std::nullopt, 3));
        register_link("blocks", &Net::blocks,
                      std::make_shared<ChainList>(std::vector<std::shared_ptr<Link>>{std::make_shared<Toy>(3, 3),
                                                                                     std::make_shared<Toy>(3, 3)}));
        register_link("l2", &Net::l2, std::make_shared<Toy>(3, 2));
    }

    Variable forward(const Variable& x) override {
        Variable h = (*l1)(x);
        h = (*blocks)[0](h);
        h = (*blocks)[1](h);
        return (*l2)(h);
    }
};

}  // namespace rensa::links::testing
