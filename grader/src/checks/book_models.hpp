// What the book's kernels of labs 1-3 access, warp instruction by warp instruction, for
// one pass over n elements (n a power of two, blockDim = min(n/2, 1024)). The requests
// tests compare a lab's counters with these; docs/01-03 give the closed forms.
#pragma once

#include <reduce_lab/abi.h>

namespace reduce_lab::grader {

Counters model_simple_pass(unsigned n);         // Fig. 10.6
Counters model_convergent_pass(unsigned n);     // Fig. 10.9
Counters model_shared_memory_pass(unsigned n);  // Fig. 10.11
// Fig. 10.6's pairs with the owners kept together (threads 0, 1, ... rather than multiples of the
// stride): lab 1's requests in lab 2's warp instructions.
Counters model_neighbored_less_pass(unsigned n);

// The model of a multipass lab: the book kernel its plan in grader/labs.json names.
Counters book_model_pass(int lab, unsigned n);

unsigned long long total_requests(const Counters& c);
// Active lanes over 32 x warp instructions, all kinds together.
double simd_efficiency(const Counters& c);

}  // namespace reduce_lab::grader
