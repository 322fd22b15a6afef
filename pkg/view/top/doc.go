// Package top ranks the functions of folded stacks by self and total
// cost, the table go tool pprof -top prints: flat (the samples where the
// function is the leaf), flat%, sum% (running total of flat%), cum (the
// samples where it is anywhere on the stack, counted once per sample
// however deep it recurses, as pprof counts) and cum%. It also prints
// pprof -peek's view of a function: its callers and callees with the
// counts of the calls between them.
//
// A [Counter] sums the records it is given per distinct stack (memory
// grows with the distinct stacks, not with the lines); [Counter.Table] and
// [Counter.Peek] then rank them by function (frame name), by module (see
// [ModuleOf]) or by comm (the root frame).
//
// Differential records ("stack before after") are ranked by their second
// count, the one a differential flame graph draws, and the table carries
// the first count of each row too, so that it can show what changed.
package top
