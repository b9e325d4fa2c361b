// Catch2's main lives alone so that editing the tests does not recompile it.
#if REDUCE_LAB_CATCH2_MAJOR < 3
#define CATCH_CONFIG_MAIN
#endif
#include "../../src/catch_compat.hpp"
#if REDUCE_LAB_CATCH2_MAJOR >= 3
int main(int argc, char** argv) { return Catch::Session().run(argc, argv); }
#endif
