// A program outside rensa's tree that uses the installed package (README.md beside it): trains a
// small MLP on synthetic regression data with Adam, saves it to an NPZ file, loads the file into a
// fresh model and checks that both give the same outputs. Prints one line per stage and exits
// non-zero when training does not lower the loss or the reloaded model differs.
//
//   consumer [out.npz]

#include <rensa/rensa.h>

#include <cmath>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>

namespace {

namespace F = rensa::functions;
namespace L = rensa::links;
namespace ops = rensa::ops;
using rensa::Array;
using rensa::Shape;
using rensa::Variable;

// Two Linear layers with a ReLU between them (Chainer's MLP of the README).
class MLP : public L::Cloneable<MLP, L::Chain> {
public:
    std::shared_ptr<L::Linear> l1, l2;
    MLP() {
        register_link("l1", &MLP::l1, std::make_shared<L::Linear>(4, 32));
        register_link("l2", &MLP::l2, std::make_shared<L::Linear>(32, 1));
    }
    using Link::forward;
    Variable forward(const Variable& x) override { return (*l2)(F::relu((*l1)(x))); }
};

double mse(MLP& model, const Array& x, const Array& t) {
    const rensa::NoBackpropMode no_backprop;
    return F::mean_squared_error(model(Variable(x, false)), Variable(t, false)).array().item<float>();
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const std::string path = argc > 1 ? argv[1] : "consumer_mlp.npz";
        std::printf("rensa %s (header %s)\n", rensa::version(), RENSA_VERSION_STRING);

        // y = sin(x . w): 256 samples of 4 features, one target.
        rensa::global_generator().seed(0);
        const Array x = ops::normal(Shape{256, 4});
        const Array w = ops::normal(Shape{4, 1}, 0.0, 0.5);
        const Array t = ops::sin(ops::matmul(x, w));

        auto model = std::make_shared<MLP>();
        rensa::optimizers::Adam optimizer({.alpha = 0.01});
        optimizer.setup(model);
        const double initial = mse(*model, x, t);
        for (int step = 0; step < 200; ++step) {
            optimizer.update([&] { return F::mean_squared_error((*model)(Variable(x, false)), Variable(t, false)); });
        }
        const double trained = mse(*model, x, t);
        std::printf("train: mse %.5f -> %.5f after %lld Adam steps\n", initial, trained,
                    static_cast<long long>(optimizer.t));
        if (!(trained < 0.2 * initial)) {
            std::fprintf(stderr, "consumer: training did not lower the loss to a fifth (%.5f -> %.5f)\n", initial,
                         trained);
            return 1;
        }

        rensa::serializers::save_npz(path, *model);
        MLP reloaded;
        rensa::serializers::load_npz(path, reloaded);
        const rensa::NoBackpropMode no_backprop;
        const Array y0 = (*model)(Variable(x, false)).array();
        const Array y1 = reloaded(Variable(x, false)).array();
        const double max_diff = ops::max(ops::abs(y0 - y1)).item<float>();
        std::printf("npz: saved %s, reloaded: max |y - y_reloaded| = %g\n", path.c_str(), max_diff);
        if (max_diff != 0.0) {
            std::fprintf(stderr, "consumer: the model loaded from %s differs from the saved one\n", path.c_str());
            return 1;
        }
        std::printf("consumer: OK\n");
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "consumer: %s\n", e.what());
        return 1;
    }
}
