"""Models of the kinds people write (issue 10's corpus), each a function returning a fresh model.

They use catalog layers, keras.ops on symbolic tensors, nested models, dict inputs and a
registered custom layer, the way Keras's own examples write them.
"""

import keras
from keras import layers, ops


@keras.saving.register_keras_serializable(package="corpus")
class Sampling(layers.Layer):
    """The VAE example's reparameterisation: z = mean + exp(log_var / 2) * eps (eps = 0 here, so
    that outputs compare exactly)."""

    def call(self, inputs):
        z_mean, z_log_var = inputs
        return z_mean + ops.exp(0.5 * z_log_var) * ops.zeros_like(z_mean)


@keras.saving.register_keras_serializable(package="corpus")
class Scale(layers.Layer):
    """A layer with a weight and a constructor argument of its own."""

    def __init__(self, factor=2.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def build(self, input_shape):
        self.gain = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="gain")

    def call(self, x):
        return x * self.gain * self.factor

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}


def unet():
    inputs = keras.Input((32, 32, 1), name="image")
    c1 = layers.Conv2D(8, 3, padding="same", activation="relu")(inputs)
    p1 = layers.MaxPooling2D()(c1)
    c2 = layers.Conv2D(16, 3, padding="same", activation="relu")(p1)
    p2 = layers.MaxPooling2D()(c2)
    b = layers.Conv2D(32, 3, padding="same", activation="relu")(p2)
    u2 = layers.Conv2DTranspose(16, 2, strides=2, padding="same")(b)
    c3 = layers.Conv2D(16, 3, padding="same", activation="relu")(layers.Concatenate()([u2, c2]))
    u1 = layers.UpSampling2D()(c3)
    c4 = layers.Conv2D(8, 3, padding="same", activation="relu")(layers.Concatenate()([u1, c1]))
    return keras.Model(inputs, layers.Conv2D(1, 1, activation="sigmoid")(c4), name="unet")


def siamese():
    encoder_in = keras.Input((16,), name="features")
    h = layers.Dense(16, activation="relu")(encoder_in)
    encoder = keras.Model(encoder_in, layers.Dense(8)(h), name="encoder")
    a, b = keras.Input((16,), name="left"), keras.Input((16,), name="right")
    distance = ops.abs(encoder(a) - encoder(b))  # the shared nested encoder, called twice
    return keras.Model([a, b], layers.Dense(1, activation="sigmoid")(distance), name="siamese")


def transformer_encoder():
    inputs = keras.Input((10, 16), name="tokens")
    x = layers.MultiHeadAttention(num_heads=2, key_dim=8)(inputs, inputs)
    x = layers.LayerNormalization(epsilon=1e-6)(x + inputs)  # residual as people write it
    ffn = layers.Dense(32, activation="relu")(x)
    ffn = layers.Dense(16)(ffn)
    x = layers.LayerNormalization(epsilon=1e-6)(ffn + x)
    x = layers.GlobalAveragePooling1D()(x)
    return keras.Model(inputs, layers.Dense(3, activation="softmax")(x), name="transformer")


def mlp_mixer():
    inputs = keras.Input((16, 16, 3), name="image")
    patches = layers.Conv2D(12, 4, strides=4)(inputs)  # 4x4 patches of 12 channels
    x = layers.Reshape((16, 12))(patches)
    for _ in range(2):
        y = layers.LayerNormalization()(x)
        y = ops.transpose(y, axes=(0, 2, 1))  # token mixing
        y = layers.Dense(16, activation="gelu")(y)
        y = ops.transpose(y, axes=(0, 2, 1))
        x = x + y
        y = layers.LayerNormalization()(x)
        x = x + layers.Dense(12, activation="gelu")(y)  # channel mixing
    x = layers.GlobalAveragePooling1D()(x)
    return keras.Model(inputs, layers.Dense(10)(x), name="mixer")


def wide_and_deep():
    wide = keras.Input((8,), name="wide")
    deep = keras.Input((6,), name="deep")
    d = layers.Dense(16, activation="relu")(deep)
    d = layers.Dense(8, activation="relu")(d)
    both = layers.Concatenate()([wide, d])
    return keras.Model({"wide": wide, "deep": deep}, layers.Dense(1)(both), name="wide_deep")


def vae_encoder():
    inputs = keras.Input((28, 28, 1), name="image")
    x = layers.Conv2D(8, 3, strides=2, padding="same", activation="relu")(inputs)
    x = layers.Flatten()(x)
    x = layers.Dense(16, activation="relu")(x)
    z_mean = layers.Dense(2, name="z_mean")(x)
    z_log_var = layers.Dense(2, name="z_log_var")(x)
    z = Sampling(name="z")([z_mean, z_log_var])
    return keras.Model(inputs, [z_mean, z_log_var, z], name="encoder")


def augmented_cnn():
    inputs = keras.Input((16, 16, 3), name="image")
    x = layers.RandomFlip("horizontal")(inputs)
    x = layers.RandomRotation(0.1)(x)
    x = layers.RandomZoom(0.1)(x)
    x = layers.Rescaling(1 / 255)(x)
    x = layers.Conv2D(8, 3, activation="relu")(x)
    x = layers.GlobalMaxPooling2D()(x)
    return keras.Model(inputs, layers.Dense(4)(x), name="augmented")


def lstm_with_states():
    inputs = keras.Input((7, 5), name="sequence")
    out, h, c = layers.LSTM(8, return_state=True, return_sequences=True)(inputs)
    summary = layers.GRU(4)(out)
    both = layers.Concatenate()([h, c, summary])
    return keras.Model(inputs, layers.Dense(2)(both), name="lstm_states")


def ops_direct():
    x = keras.Input((6,), name="x")
    y = keras.Input((6,), name="y")
    z = ops.expand_dims(x * y, axis=1)
    z = ops.concatenate([z, ops.expand_dims(x - 1.0, axis=1)], axis=1)
    s = ops.softmax(ops.mean(z, axis=1), axis=-1)
    gate = ops.sigmoid(layers.Dense(6)(s))
    return keras.Model([x, y], [s * gate, ops.sum(z, axis=-1)], name="ops_direct")


def resnet_block():
    inputs = keras.Input((16, 16, 8), name="image")
    x = layers.Conv2D(8, 3, padding="same")(inputs)
    x = layers.BatchNormalization()(x)
    x = layers.ReLU()(x)
    x = layers.Conv2D(8, 3, padding="same")(x)
    x = layers.BatchNormalization()(x)
    x = layers.Activation("relu")(layers.Add()([x, inputs]))
    return keras.Model(inputs, layers.GlobalAveragePooling2D()(x), name="resblock")


def two_heads():
    inputs = keras.Input((12,), name="features")
    h = layers.Dense(16, activation="relu")(inputs)
    h = layers.Dropout(0.3)(h)
    return keras.Model(inputs, [layers.Dense(3, activation="softmax", name="kind")(h),
                                layers.Dense(1, name="price")(h)], name="two_heads")


def text_classifier():
    tokens = keras.Input((20,), dtype="int32", name="tokens")
    x = layers.Embedding(100, 8)(tokens)
    x = layers.Bidirectional(layers.GRU(4, return_sequences=True))(x)
    x = layers.GlobalAveragePooling1D()(x)
    return keras.Model(tokens, layers.Dense(2)(x), name="text")


def sequential_cnn():
    return keras.Sequential([keras.Input((12, 12, 1)), layers.Conv2D(4, 3, activation="relu"),
                             layers.MaxPooling2D(), layers.Flatten(), layers.Dense(5)],
                            name="seq_cnn")


def autoencoder():
    inputs = keras.Input((16, 16, 1), name="image")
    x = layers.Conv2D(4, 3, strides=2, padding="same", activation="relu")(inputs)
    x = layers.Conv2DTranspose(4, 3, strides=2, padding="same", activation="relu")(x)
    return keras.Model(inputs, layers.Conv2D(1, 3, padding="same")(x), name="autoencoder")


def attention_seq():
    query = keras.Input((5, 8), name="query")
    value = keras.Input((7, 8), name="value")
    attended = layers.Attention()([query, value])
    pooled = ops.max(attended, axis=1)
    return keras.Model([query, value], layers.Dense(3)(pooled), name="attention")


def gated_linear_unit():
    inputs = keras.Input((10, 6), name="sequence")
    a = layers.Conv1D(8, 3, padding="same")(inputs)
    b = layers.Conv1D(8, 3, padding="same")(inputs)
    x = a * ops.sigmoid(b)  # a GLU, written with keras.ops
    x = ops.relu(x + 0.5) ** 2.0
    return keras.Model(inputs, layers.GlobalAveragePooling1D()(x), name="glu")


def custom_scale():
    inputs = keras.Input((6,), name="x")
    x = Scale(3.0, name="scale")(layers.Dense(6)(inputs))
    return keras.Model(inputs, layers.Dense(2)(x), name="custom")




def halve(t):
    """A Lambda's function: named, so exported code can import it."""
    return t * 0.5


def trusted_lambda():
    """A Lambda layer the user trusts from Python (kc.register(model.get_layer("halve")))."""
    inputs = keras.Input((6,), name="x")
    x = layers.Dense(4)(inputs)
    x = layers.Lambda(halve, name="halve")(x)
    return keras.Model(inputs, layers.Dense(2)(x), name="lambda_model")


@keras.saving.register_keras_serializable(package="corpus")
class SplitHalves(layers.Layer):
    """Returns a tuple: the first and second half of the last axis, each scaled by a weight."""

    def build(self, input_shape):
        self.gain = self.add_weight(shape=(input_shape[-1] // 2,), initializer="ones", name="gain")

    def call(self, x):
        half = x.shape[-1] // 2
        return x[..., :half] * self.gain, x[..., half:] * 2.0


@keras.saving.register_keras_serializable(package="corpus")
class MinMax(layers.Layer):
    """Returns a dict of two tensors (flattened in key order: "high", "low")."""

    def call(self, x):
        return {"low": ops.min(x, axis=-1, keepdims=True), "high": ops.max(x, axis=-1, keepdims=True)}


def several_outputs():
    """Custom layers whose calls return a tuple and a dict, under a model with dict outputs."""
    inputs = keras.Input((8,), name="x")
    left, right = SplitHalves(name="halves")(layers.Dense(8)(inputs))
    stats = MinMax(name="stats")(right)
    both = layers.Concatenate()([left, stats["low"], stats["high"]])
    return keras.Model(inputs, {"score": layers.Dense(1, name="score")(both), "right": right,
                                "low": stats["low"]}, name="several_outputs")


# ----- keras.io examples that pass tensors by keyword (issue 23), made small ------------------


class PositionalEmbedding(layers.Layer):
    """keras.io, "English-to-Spanish translation with a sequence-to-sequence Transformer":
    token and position embeddings, with a padding mask Keras passes on to the next layers."""

    def __init__(self, sequence_length, vocab_size, embed_dim, **kwargs):
        super().__init__(**kwargs)
        self.token_embeddings = layers.Embedding(input_dim=vocab_size, output_dim=embed_dim)
        self.position_embeddings = layers.Embedding(input_dim=sequence_length,
                                                    output_dim=embed_dim)
        self.sequence_length = sequence_length
        self.vocab_size = vocab_size
        self.embed_dim = embed_dim

    def call(self, inputs):
        length = ops.shape(inputs)[-1]
        positions = ops.arange(0, length, 1)
        return self.token_embeddings(inputs) + self.position_embeddings(positions)

    def compute_mask(self, inputs, mask=None):
        return ops.not_equal(inputs, 0)

    def get_config(self):
        return {**super().get_config(), "sequence_length": self.sequence_length,
                "vocab_size": self.vocab_size, "embed_dim": self.embed_dim}


class TransformerEncoder(layers.Layer):
    """The same example's encoder: called on one tensor, Keras adds mask= (a tensor)."""

    def __init__(self, embed_dim, dense_dim, num_heads, **kwargs):
        super().__init__(**kwargs)
        self.embed_dim, self.dense_dim, self.num_heads = embed_dim, dense_dim, num_heads
        self.attention = layers.MultiHeadAttention(num_heads=num_heads, key_dim=embed_dim)
        self.dense_proj = keras.Sequential([layers.Dense(dense_dim, activation="relu"),
                                            layers.Dense(embed_dim)])
        self.layernorm_1 = layers.LayerNormalization()
        self.layernorm_2 = layers.LayerNormalization()
        self.supports_masking = True

    def call(self, inputs, mask=None):
        padding_mask = None if mask is None else ops.cast(mask[:, None, :], dtype="int32")
        attention_output = self.attention(query=inputs, value=inputs, key=inputs,
                                          attention_mask=padding_mask)
        proj_input = self.layernorm_1(inputs + attention_output)
        return self.layernorm_2(proj_input + self.dense_proj(proj_input))

    def get_config(self):
        return {**super().get_config(), "embed_dim": self.embed_dim,
                "dense_dim": self.dense_dim, "num_heads": self.num_heads}


class TransformerDecoder(layers.Layer):
    """The same example's decoder: the encoder's outputs come by keyword (encoder_outputs=)."""

    def __init__(self, embed_dim, latent_dim, num_heads, **kwargs):
        super().__init__(**kwargs)
        self.embed_dim, self.latent_dim, self.num_heads = embed_dim, latent_dim, num_heads
        self.attention_1 = layers.MultiHeadAttention(num_heads=num_heads, key_dim=embed_dim)
        self.attention_2 = layers.MultiHeadAttention(num_heads=num_heads, key_dim=embed_dim)
        self.dense_proj = keras.Sequential([layers.Dense(latent_dim, activation="relu"),
                                            layers.Dense(embed_dim)])
        self.layernorm_1 = layers.LayerNormalization()
        self.layernorm_2 = layers.LayerNormalization()
        self.layernorm_3 = layers.LayerNormalization()
        self.supports_masking = True

    def call(self, inputs, encoder_outputs=None, mask=None):
        attention_output_1 = self.attention_1(query=inputs, value=inputs, key=inputs,
                                              use_causal_mask=True)
        out_1 = self.layernorm_1(inputs + attention_output_1)
        attention_output_2 = self.attention_2(query=out_1, value=encoder_outputs,
                                              key=encoder_outputs)
        out_2 = self.layernorm_2(out_1 + attention_output_2)
        return self.layernorm_3(out_2 + self.dense_proj(out_2))

    def get_config(self):
        return {**super().get_config(), "embed_dim": self.embed_dim,
                "latent_dim": self.latent_dim, "num_heads": self.num_heads}


def translation_transformer():
    """keras.io's English-to-Spanish Transformer (sequence length 6, vocabulary 30, width 8)."""
    encoder_inputs = keras.Input(shape=(None,), dtype="int64", name="encoder_inputs")
    x = PositionalEmbedding(6, 30, 8)(encoder_inputs)
    encoder_outputs = TransformerEncoder(8, 16, 2)(x)
    decoder_inputs = keras.Input(shape=(None,), dtype="int64", name="decoder_inputs")
    x = PositionalEmbedding(6, 30, 8)(decoder_inputs)
    x = TransformerDecoder(8, 16, 2)(x, encoder_outputs=encoder_outputs)
    x = layers.Dropout(0.5)(x)
    decoder_outputs = layers.Dense(30, activation="softmax")(x)
    return keras.Model([encoder_inputs, decoder_inputs], decoder_outputs, name="transformer")


def audio_attention():
    """After keras.io's audio classification examples (a log-mel front end over a short clip):
    strided convolutions, then self-attention over frames with MultiHeadAttention called by
    keyword, query/value/key and a causal mask as a call setting."""
    audio = keras.Input(shape=(256, 1), name="audio")
    x = layers.Conv1D(8, 9, strides=4, padding="same", activation="relu")(audio)
    x = layers.Conv1D(8, 5, strides=4, padding="same", activation="relu")(x)
    attended = layers.MultiHeadAttention(num_heads=2, key_dim=4)(
        query=x, value=x, key=x, use_causal_mask=True)
    x = layers.LayerNormalization()(layers.Add()([x, attended]))
    x = layers.GlobalAveragePooling1D()(x)
    return keras.Model(audio, layers.Dense(3, activation="softmax")(x), name="audio_attention")


def graph_attention():
    """After keras.io's graph attention examples: node features attend to their neighbours,
    the adjacency matrix given as attention_mask= (a tensor by keyword), two heads stacked."""
    nodes = keras.Input(shape=(7, 5), name="node_features")
    adjacency = keras.Input(shape=(7, 7), name="adjacency")
    x = layers.Dense(8)(nodes)
    for _ in range(2):
        attended = layers.MultiHeadAttention(num_heads=2, key_dim=4)(
            x, x, attention_mask=adjacency)
        x = layers.LayerNormalization()(x + attended)
    x = layers.GlobalAveragePooling1D()(x)
    return keras.Model([nodes, adjacency], layers.Dense(2)(x), name="graph_attention")


HAND_WRITTEN = [unet, siamese, transformer_encoder, mlp_mixer, wide_and_deep, vae_encoder,
                augmented_cnn, lstm_with_states, ops_direct, resnet_block, two_heads,
                text_classifier, sequential_cnn, autoencoder, attention_seq, gated_linear_unit,
                custom_scale, trusted_lambda, several_outputs, translation_transformer,
                audio_attention, graph_attention]
CUSTOM = [Sampling, Scale, SplitHalves, MinMax]
