#include "attn/core/aoa.hpp"

#include "attn/core/error.hpp"
#include "attn/core/internal/kernels.hpp"
#include "attn/core/internal/linalg.hpp"
#include "attn/core/probability.hpp"

namespace attn {

AttentionOverAttention attention_over_attention(const float* document, int document_length, const float* query,
                                                int query_length, int dim) {
  check_size("document_length", document_length);
  check_size("query_length", query_length);
  check_size("dim", dim);
  if (!document || !query) fail("attention-over-attention needs a document and a query");
  check_finite("document", document, element_count("document", {document_length, dim}));
  check_finite("query", query, element_count("query", {query_length, dim}));
  element_count("pairwise", {document_length, query_length});

  AttentionOverAttention result;
  const int n = document_length, m = query_length;
  result.pairwise.resize(static_cast<std::size_t>(n) * m);
  const std::vector<float> query_t = transposed(query, m, dim);
  kernels::matmul(n, m, dim, 1.0f, document, dim, query_t.data(), m, result.pairwise.data(), m, false);

  // alpha: softmax down each column, done as rows of the transpose.
  std::vector<float> columns = transposed(result.pairwise.data(), n, m);
  for (int j = 0; j < m; ++j) softmax(columns.data() + static_cast<std::size_t>(j) * n, n);
  result.column_softmax = transposed(columns.data(), m, n);

  result.row_softmax = result.pairwise;
  for (int i = 0; i < n; ++i) softmax(result.row_softmax.data() + static_cast<std::size_t>(i) * m, m);

  result.query_attention.assign(m, 0.0f);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < m; ++j) result.query_attention[j] += result.row_softmax[static_cast<std::size_t>(i) * m + j];
  }
  for (float& x : result.query_attention) x /= static_cast<float>(n);

  result.document_attention.resize(n);
  kernels::matmul(n, 1, m, 1.0f, result.column_softmax.data(), m, result.query_attention.data(), 1,
                  result.document_attention.data(), 1, false);
  return result;
}

}  // namespace attn
