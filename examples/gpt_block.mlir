// A GPT-2-style language model with a single transformer block, small enough
// to read: batch B = 4, sequence T = 32, width C = 64, H = 4 heads of
// D = 16, vocabulary V = 128, MLP width 4C = 256.
//
//   x0     = wte[tokens] + wpe                      [B, T, C]
//   x1     = x0 + proj(attention(ln_1(x0)))         causal, H heads
//   x2     = x1 + mlp(ln_2(x1))                     mlp = fc, gelu (tanh), proj
//   logits = ln_f(x2) @ wte^T                       [B, T, V], tied embedding
//   loss   = cross_entropy(logits, targets)         mean over the B*T tokens
//
// The blocks are pre-LN (layer_norm with scale and bias before attention and
// before the MLP) and attention is the fused `amp.attention` op. The same
// model with the attention spelled out is gpt_block_unfused.mlir.
//
// Only the forward pass and the loss are written here. The trainable
// parameters are the function arguments marked `amp.param`; tokens and
// targets are plain i64 arguments. The compiler derives the backward pass,
// the optimizer step and the mixed-precision casts from this graph later.
//
// Note that B*T = V = 128, so the flattened logits are [128, 128].

module {
  func.func @gpt_block(%tokens: tensor<4x32xi64>,
                       %targets: tensor<4x32xi64>,
                       %wte: tensor<128x64xf32> {amp.param},
                       %wpe: tensor<32x64xf32> {amp.param},
                       %ln1_scale: tensor<64xf32> {amp.param},
                       %ln1_bias: tensor<64xf32> {amp.param},
                       %attn_qkv_w: tensor<64x192xf32> {amp.param},
                       %attn_qkv_b: tensor<192xf32> {amp.param},
                       %attn_proj_w: tensor<64x64xf32> {amp.param},
                       %attn_proj_b: tensor<64xf32> {amp.param},
                       %ln2_scale: tensor<64xf32> {amp.param},
                       %ln2_bias: tensor<64xf32> {amp.param},
                       %mlp_fc_w: tensor<64x256xf32> {amp.param},
                       %mlp_fc_b: tensor<256xf32> {amp.param},
                       %mlp_proj_w: tensor<256x64xf32> {amp.param},
                       %mlp_proj_b: tensor<64xf32> {amp.param},
                       %lnf_scale: tensor<64xf32> {amp.param},
                       %lnf_bias: tensor<64xf32> {amp.param}) -> tensor<f32> {
    // Token embedding plus learned position embedding (broadcast over B).
    %tok_emb = amp.embedding %wte[%tokens]
        : tensor<128x64xf32>, tensor<4x32xi64>
    %x0 = amp.add %tok_emb, %wpe : tensor<4x32x64xf32>, tensor<32x64xf32>

    // ---- Attention sub-block -------------------------------------------
    %ln1 = amp.layer_norm %x0 scale(%ln1_scale : tensor<64xf32>)
        bias(%ln1_bias : tensor<64xf32>) : tensor<4x32x64xf32>

    // One projection for queries, keys and values: [B, T, 3C].
    %qkv_mm = amp.matmul %ln1, %attn_qkv_w
        : tensor<4x32x64xf32>, tensor<64x192xf32> to tensor<4x32x192xf32>
    %qkv = amp.add %qkv_mm, %attn_qkv_b : tensor<4x32x192xf32>, tensor<192xf32>
    %q_flat = amp.slice %qkv [0, 0, 0] to [4, 32, 64]
        : tensor<4x32x192xf32> to tensor<4x32x64xf32>
    %k_flat = amp.slice %qkv [0, 0, 64] to [4, 32, 128]
        : tensor<4x32x192xf32> to tensor<4x32x64xf32>
    %v_flat = amp.slice %qkv [0, 0, 128] to [4, 32, 192]
        : tensor<4x32x192xf32> to tensor<4x32x64xf32>

    // Split the width into heads, [B, T, H, D], and move heads before
    // the sequence, [B, H, T, D].
    %q_split = amp.reshape %q_flat
        : tensor<4x32x64xf32> to tensor<4x32x4x16xf32>
    %k_split = amp.reshape %k_flat
        : tensor<4x32x64xf32> to tensor<4x32x4x16xf32>
    %v_split = amp.reshape %v_flat
        : tensor<4x32x64xf32> to tensor<4x32x4x16xf32>
    %q = amp.transpose %q_split, [0, 2, 1, 3]
        : tensor<4x32x4x16xf32> to tensor<4x4x32x16xf32>
    %k = amp.transpose %k_split, [0, 2, 1, 3]
        : tensor<4x32x4x16xf32> to tensor<4x4x32x16xf32>
    %v = amp.transpose %v_split, [0, 2, 1, 3]
        : tensor<4x32x4x16xf32> to tensor<4x4x32x16xf32>

    // Fused causal scaled dot-product attention (scale 1/sqrt(D) = 0.25).
    %attn = amp.attention %q, %k, %v causal
        : tensor<4x4x32x16xf32>, tensor<4x4x32x16xf32>, tensor<4x4x32x16xf32>

    // Merge the heads back into [B, T, C] and project.
    %attn_split = amp.transpose %attn, [0, 2, 1, 3]
        : tensor<4x4x32x16xf32> to tensor<4x32x4x16xf32>
    %attn_merged = amp.reshape %attn_split
        : tensor<4x32x4x16xf32> to tensor<4x32x64xf32>
    %attn_proj_mm = amp.matmul %attn_merged, %attn_proj_w
        : tensor<4x32x64xf32>, tensor<64x64xf32> to tensor<4x32x64xf32>
    %attn_out = amp.add %attn_proj_mm, %attn_proj_b
        : tensor<4x32x64xf32>, tensor<64xf32>
    %x1 = amp.add %x0, %attn_out : tensor<4x32x64xf32>, tensor<4x32x64xf32>

    // ---- MLP sub-block -------------------------------------------------
    %ln2 = amp.layer_norm %x1 scale(%ln2_scale : tensor<64xf32>)
        bias(%ln2_bias : tensor<64xf32>) : tensor<4x32x64xf32>
    %fc_mm = amp.matmul %ln2, %mlp_fc_w
        : tensor<4x32x64xf32>, tensor<64x256xf32> to tensor<4x32x256xf32>
    %fc = amp.add %fc_mm, %mlp_fc_b : tensor<4x32x256xf32>, tensor<256xf32>
    %fc_act = amp.gelu %fc approximate = tanh : tensor<4x32x256xf32>
    %mlp_proj_mm = amp.matmul %fc_act, %mlp_proj_w
        : tensor<4x32x256xf32>, tensor<256x64xf32> to tensor<4x32x64xf32>
    %mlp_out = amp.add %mlp_proj_mm, %mlp_proj_b
        : tensor<4x32x64xf32>, tensor<64xf32>
    %x2 = amp.add %x1, %mlp_out : tensor<4x32x64xf32>, tensor<4x32x64xf32>

    // ---- Head: final layer norm, logits through the tied embedding -----
    %lnf = amp.layer_norm %x2 scale(%lnf_scale : tensor<64xf32>)
        bias(%lnf_bias : tensor<64xf32>) : tensor<4x32x64xf32>
    %logits = amp.matmul %lnf, %wte {transpose_rhs}
        : tensor<4x32x64xf32>, tensor<128x64xf32> to tensor<4x32x128xf32>

    // Next-token loss over all B*T positions.
    %logits_flat = amp.reshape %logits
        : tensor<4x32x128xf32> to tensor<128x128xf32>
    %targets_flat = amp.reshape %targets : tensor<4x32xi64> to tensor<128xi64>
    %loss = amp.cross_entropy %logits_flat, %targets_flat
        : tensor<128x128xf32>, tensor<128xi64> to tensor<f32>
    return %loss : tensor<f32>
  }
}
