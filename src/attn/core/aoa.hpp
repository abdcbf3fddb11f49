// Attention-over-attention (Cui et al. 2017, for cloze-style reading comprehension):
//   M = D Q^T                         pairwise matching scores [document][query]
//   alpha = softmax over the document, column by column (query-to-document attention)
//   beta  = softmax over the query, row by row (document-to-query attention)
//   beta_avg = mean of beta's rows    averaged query-level attention [query]
//   s = alpha beta_avg                attended document-level attention [document]
#pragma once

#include <vector>

namespace attn {

struct AttentionOverAttention {
  std::vector<float> pairwise;            // M     [document_length][query_length]
  std::vector<float> column_softmax;      // alpha [document_length][query_length]
  std::vector<float> row_softmax;         // beta  [document_length][query_length]
  std::vector<float> query_attention;     // beta_avg [query_length]
  std::vector<float> document_attention;  // s   [document_length]
};

// document [document_length][dim], query [query_length][dim] (contextual embeddings).
AttentionOverAttention attention_over_attention(const float* document, int document_length, const float* query,
                                                int query_length, int dim);

}  // namespace attn
