// The source of the runtime libraries of Note [Lazy native libraries] (python/CMakeLists.txt):
// librensa_runtime.so and librensa_runtime_cuda.so hold rensa's static modules whole and have
// no code of their own; a shared library needs one source file.
