"""Untrusted models: reading a .keras file or a SavedModel never runs code stored in it.

The model carries a Keras Lambda layer whose function (a Python lambda, stored in the file as
bytecode) writes a marker file when it runs.  The marker is removed after saving (building the
model ran the function once); the import must not bring it back."""

from __future__ import annotations

from tools.cann_translate import main as translate_main


def _model_with_marker_lambda(marker):
    import keras

    # the lambda's code holds the marker's path as a constant: stored in the file, runnable
    touch = eval(f"lambda x: (open({str(marker)!r}, 'w').write('ran'), x * 2.0)[1]")  # noqa: S307
    inp = keras.Input((4,), name="x")
    out = keras.layers.Lambda(touch, output_shape=(4,))(keras.layers.Dense(4)(inp))
    return keras.Model(inp, out)


def test_keras_file_lambda_is_not_deserialized(tmp_path, capsys):
    marker = tmp_path / "ran.txt"
    model = _model_with_marker_lambda(marker)
    path = tmp_path / "m.keras"
    model.save(path)
    marker.unlink(missing_ok=True)
    out = tmp_path / "m.mlir"
    assert translate_main(["--import-graphdef", str(path), "-o", str(out)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"{path}: error: cannot load the Keras model: ") and "Lambda" in err, err
    assert len(err.splitlines()) == 1
    assert not marker.exists()
    assert not out.exists()


def test_saved_model_runs_no_python_from_the_directory(tmp_path, capsys):
    marker = tmp_path / "ran.txt"
    model = _model_with_marker_lambda(marker)
    saved = tmp_path / "saved"
    model.export(str(saved))  # the lambda runs here, while tracing, and becomes graph ops
    marker.unlink(missing_ok=True)
    out = tmp_path / "m.mlir"
    assert translate_main(["--import-graphdef", str(saved), "-o", str(out)]) == 0, \
        capsys.readouterr().err
    assert "tf.Mul" in out.read_text() or "tf.MatMul" in out.read_text()
    assert not marker.exists()
