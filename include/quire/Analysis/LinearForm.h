//===- LinearForm.h - Integers as sums of scaled atoms ----------*- C++ -*-===//
//
// An integer value of a kernel written as
//     constant + sum_i coeff_i * atom_i + sum_d lane_d * index_d
// where the atoms are SSA values the form does not look into (kernel
// arguments, loads, products of two run-time values, ...) and index_d is an
// element's index along dimension d of a tensor. `start + tl.arange(0, 64)`
// is {start: 1} + lane 1; `(x // 16) * 16` is {x: 1} once x is known to be
// a multiple of 16. Two values with equal forms are equal element by
// element, and the difference of two forms without atoms left is a known
// constant per element: what quire-forward-stores and
// quire-raise-paged-loads use to compare addresses and masks written in
// different ways.
//
// Integer arithmetic is taken as exact: offsets and token indices are
// assumed not to wrap (as the passes that use the forms document).
//
//===----------------------------------------------------------------------===//

#ifndef QUIRE_ANALYSIS_LINEARFORM_H
#define QUIRE_ANALYSIS_LINEARFORM_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <functional>
#include <optional>

namespace mlir::quire {

struct LinearForm {
  int64_t constant = 0;
  /// (atom, coefficient) pairs: no zero coefficients, sorted by atom.
  SmallVector<std::pair<Value, int64_t>, 4> terms;
  /// The coefficient of the element index along each dimension (empty for
  /// scalars).
  SmallVector<int64_t, 2> lanes;

  static LinearForm constantOf(int64_t c, unsigned rank = 0);
  static LinearForm atomOf(Value atom, unsigned rank = 0);

  /// this += scale * other; a scalar other adds to every element.
  void add(const LinearForm &other, int64_t scale = 1);
  void multiply(int64_t factor);
  int64_t coefficient(Value atom) const;
  void setCoefficient(Value atom, int64_t coeff);

  /// No lane coefficients: every element holds the same value.
  bool isUniform() const;
  /// A uniform form without atoms: a known number.
  bool isConstant() const { return isUniform() && terms.empty(); }
  /// The value at element `index` (one entry per dimension), as a scalar
  /// form.
  LinearForm at(ArrayRef<int64_t> index) const;
  /// The same atoms with the same coefficients (constants may differ).
  bool sameTerms(const LinearForm &other) const { return terms == other.terms; }
  bool operator==(const LinearForm &other) const {
    return constant == other.constant && terms == other.terms &&
           lanes == other.lanes;
  }
};

/// Computes forms, caching them. Atoms are scalars, or tensors where a
/// tensor is not affine in its indices (`offs // 16`); only scalar atoms
/// can be rebuilt with `materialize`.
class Linearizer {
public:
  /// `divisor(v)` returns a known divisor of the scalar `v` (1 if none):
  /// with it, `c * (x / c)` and `c * (x >> log2 c)` become x.
  explicit Linearizer(std::function<int64_t(Value)> divisor = {})
      : divisor(std::move(divisor)) {}

  /// The form of an integer scalar or tensor; nullopt for other types and
  /// for tensors the form cannot follow (a broadcast of a non-affine
  /// tensor, say).
  std::optional<LinearForm> get(Value v);

  /// A pointer (scalar or tensor) as `root + form` elements, `root` the
  /// first value of its addptr chain that is not an addptr, splat,
  /// broadcast or expand_dims; nullopt where the offsets have no form.
  std::optional<LinearForm> pointer(Value p, Value &root);

  /// Rewrites `c * (x / c)` (c | coefficient, x known to be a multiple of
  /// c) as x, repeatedly.
  void normalize(LinearForm &f);

  /// True if `f` is an exact multiple of `c` for every value of its atoms.
  bool divides(const LinearForm &f, int64_t c);

  /// Builds the uniform part of `f` (its scalar atoms and constant) as a
  /// scalar of integer type `type` at `b`; null if `f` is not uniform. The
  /// atoms must be visible at the insertion point.
  Value materialize(OpBuilder &b, Location loc, const LinearForm &f, Type type);

  /// Forgets every form computed so far (call it once ops were erased:
  /// forms are cached by value).
  void clear() { cache.clear(); }

private:
  std::optional<LinearForm> compute(Value v);
  int64_t divisorOf(Value v);

  std::function<int64_t(Value)> divisor;
  llvm::DenseMap<Value, std::optional<LinearForm>> cache;
};

} // namespace mlir::quire

#endif // QUIRE_ANALYSIS_LINEARFORM_H
