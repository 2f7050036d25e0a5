"""The `<<<>>>` rewriter (tools/asc/asc_rewrite.py): what is a launch, what is not, what it becomes."""

import pytest

import asc_rewrite

AIV = "::tessera::device::KernelType::kAiv"
AIC = "::tessera::device::KernelType::kAic"
MIX = "::tessera::device::KernelType::kMix"


def launch(kind, callee, config, args):
    return f'::tessera::compat::AscLaunch({kind}, {callee}, "{callee}", {config})({args})'


def rewrite(src):
    return asc_rewrite.rewrite("t.asc", src)


def test_plain_launch():
    out, lines = rewrite("void f() { add_custom<<<8, nullptr, stream>>>(x, y, z); }\n")
    assert out == "void f() { " + launch(AIV, "add_custom", "8, nullptr, stream", "x, y, z") + "; }\n"
    assert lines == [1]


def test_template_kernel_with_nested_angles_and_parentheses():
    src = "compare_custom<float, (3 > 2), std::max<int>(1, 2)><<<NUM, 0, s>>>(a, b);"
    out, _ = rewrite(src)
    callee = "compare_custom<float, (3 > 2), std::max<int>(1, 2)>"
    assert out == launch(AIV, callee, "NUM, 0, s", "a, b") + ";"


def test_qualified_template_kernel_ending_in_shift_token():
    out, _ = rewrite("ns::inner::k<Foo<int>><<<1, nullptr, s>>>(p);")
    assert out == launch(AIV, "ns::inner::k<Foo<int>>", "1, nullptr, s", "p") + ";"


def test_expressions_as_configuration_and_arguments():
    src = "k<<<(n + 7) / 8, nullptr, streams[i % 2]>>>(f(g(1, 2), h()), a > b ? a : b, \"x)\");"
    out, _ = rewrite(src)
    assert out == launch(
        AIV, "k", "(n + 7) / 8, nullptr, streams[i % 2]", 'f(g(1, 2), h()), a > b ? a : b, "x)"'
    ) + ";"


def test_comments_strings_and_raw_strings_are_left_alone():
    src = (
        '// k<<<1, 2, 3>>>(a)\n'
        '/* k<<<1, 2, 3>>>(a) */\n'
        'const char* s = "k<<<1, 2, 3>>>(a)";\n'
        'const char* r = R"(k<<<1, 2, 3>>>(a))";\n'
        "char c = '<';\n"
    )
    out, lines = rewrite(src)
    assert out == src
    assert lines == []


def test_launch_inside_a_macro_body_and_macro_arguments():
    src = "#define RUN(k, n, ...) k<<<n, nullptr, s>>>(__VA_ARGS__)\nRUN(add, BLOCKS, X, Y);\n"
    out, lines = rewrite(src)
    assert out.splitlines()[0] == "#define RUN(k, n, ...) " + launch(AIV, "k", "n, nullptr, s", "__VA_ARGS__")
    assert lines == [1]


def test_kernel_kind_comes_from_the_declaration():
    src = (
        "template <int N> __global__ __cube__ void mm(GM_ADDR a);\n"
        "extern \"C\" __global__ __mix__(1, 2) void mix_k(GM_ADDR a) {}\n"
        "__vector__ __global__ void vec_k(GM_ADDR a) {}\n"
        "void host() { mm<4><<<2, 0, s>>>(a); mix_k<<<3, 0, s>>>(a); vec_k<<<4, 0, s>>>(a); }\n"
    )
    out, lines = rewrite(src)
    last = out.splitlines()[3]
    assert launch(AIC, "mm<4>", "2, 0, s", "a") in last
    assert launch(MIX, "mix_k", "3, 0, s", "a") in last
    assert launch(AIV, "vec_k", "4, 0, s", "a") in last
    assert lines == [4, 4, 4]


def test_kfc_workspace_parameter_makes_an_aicore_kernel_mix():
    src = (
        "__global__ __aicore__ void mm_a(GM_ADDR a, __kfc_workspace__ GM_ADDR ws) {}\n"
        'extern "C" __global__ __aicore__ void mm_b(__gm__ uint8_t* __kfc_workspace__ ws) {}\n'
        "__global__ __cube__ void mm_c(__kfc_workspace__ GM_ADDR ws) {}\n"
        "__global__ __aicore__ void plain(GM_ADDR workspace) {}\n"
        "void host() { mm_a<<<1, 0, s>>>(a, w); mm_b<<<2, 0, s>>>(w); mm_c<<<3, 0, s>>>(w);"
        " plain<<<4, 0, s>>>(w); }\n"
    )
    out, _ = rewrite(src)
    last = out.splitlines()[4]
    assert launch(MIX, "mm_a", "1, 0, s", "a, w") in last
    assert launch(MIX, "mm_b", "2, 0, s", "w") in last
    assert launch(AIC, "mm_c", "3, 0, s", "w") in last
    assert launch(AIV, "plain", "4, 0, s", "w") in last


@pytest.mark.parametrize(
    "task_type, kind",
    [
        ("KERNEL_TYPE_AIV_ONLY", AIV),
        ("KERNEL_TYPE_MIX_AIV_1_0", AIV),
        ("KERNEL_TYPE_AIC_ONLY", AIC),
        ("KERNEL_TYPE_MIX_AIC_1_0", AIC),
        ("KERNEL_TYPE_MIX_AIC_1_1", MIX),
        ("KERNEL_TYPE_MIX_AIC_1_2", MIX),
    ],
)
def test_kernel_task_type_default_in_the_body_sets_the_kind(task_type, kind):
    src = (
        "__global__ __aicore__ void k(GM_ADDR a, __kfc_workspace__ GM_ADDR ws)\n"
        f"{{\n  if (a) {{ f(); }}\n  KERNEL_TASK_TYPE_DEFAULT({task_type});\n  g();\n}}\n"
        "void host() { k<<<5, 0, s>>>(a, w); }\n"
    )
    out, _ = rewrite(src)
    assert launch(kind, "k", "5, 0, s", "a, w") in out.splitlines()[6]


def test_a_definition_decides_over_an_earlier_prototype():
    src = (
        "__global__ __aicore__ void k(GM_ADDR a);\n"
        "__global__ __aicore__ void k(GM_ADDR a)"
        " { KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY); }\n"
        "__global__ __aicore__ void j(__kfc_workspace__ GM_ADDR a) {}\n"
        "__global__ __aicore__ void j(__kfc_workspace__ GM_ADDR a);\n"
        "void host() { k<<<1, 0, s>>>(a); j<<<1, 0, s>>>(a); }\n"
    )
    out, _ = rewrite(src)
    assert launch(AIC, "k", "1, 0, s", "a") in out.splitlines()[4]
    assert launch(MIX, "j", "1, 0, s", "a") in out.splitlines()[4]


def test_a_kernel_chosen_at_run_time_takes_the_kind_the_files_kernels_share():
    cube = (
        "__global__ __cube__ void mm_a(GM_ADDR a) {}\n"
        "template <int N> __global__ __cube__ void mm_b(GM_ADDR a) {}\n"
        "void host() { auto k = pick ? mm_a : mm_b<2>; k<<<1, 0, s>>>(a); }\n"
    )
    out, _ = rewrite(cube)
    assert launch(AIC, "k", "1, 0, s", "a") in out.splitlines()[2]
    mixed = (
        "__global__ __cube__ void mm_a(GM_ADDR a) {}\n"
        "__global__ __mix__(1, 2) void m(GM_ADDR a) {}\n"
    )
    out, _ = rewrite(mixed + "void host() { k<<<1, 0, s>>>(a); }\n")
    assert launch(AIV, "k", "1, 0, s", "a") in out.splitlines()[2]


def test_line_numbers_survive_a_launch_over_several_lines():
    src = "k<<<\n  8,\n  nullptr,\n  s>>>(\n  a,\n  b);\nint after;\n"
    out, _ = rewrite(src)
    assert out.count("\n") == src.count("\n")
    assert out.splitlines()[6] == "int after;"


def test_two_argument_configuration():
    out, _ = rewrite("k<<<8, nullptr>>>(a);")
    assert out == launch(AIV, "k", "8, nullptr", "a") + ";"


def test_shift_operators_are_not_launches():
    src = "int a = b << c; int d = (e >> f) >> g; std::vector<std::vector<int>> v;\n"
    out, lines = rewrite(src)
    assert out == src and lines == []


@pytest.mark.parametrize(
    "src, message",
    [
        ("k<<<1, nullptr, s>>>;", "must be followed by the kernel's arguments"),
        ("k<<<1, nullptr, s;", "without a matching `>>>`"),
        ("k<<<1>>>(a);", "got 1 argument(s)"),
        ("k<<<1, 2, 3, 4>>>(a);", "got 4 argument(s)"),
        ("k<<<1, nullptr, s>>>(a;", "argument list is not closed"),
        ("x = <<<1, 2, 3>>>(a);", "without a kernel name"),
    ],
)
def test_malformed_launches_are_named(src, message):
    with pytest.raises(asc_rewrite.RewriteError) as err:
        rewrite(src)
    assert message in str(err.value)
    assert str(err.value).startswith("t.asc:1:")
