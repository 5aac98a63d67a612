#pragma once

// The demo's asynchronous steps as C++20 coroutines, without a nested event loop: a scenario step
// reads top to bottom (`const HttpReply r = co_await api(...)`), and every co_await returns to
// the caller's event loop until a callback (a QNetworkReply, a timer) resumes it.
//
// Limits:
// - Coroutine parameters must be taken by value: a reference parameter would dangle once the
//   coroutine is suspended. Use member functions, not lambdas, as coroutines (a lambda's captures
//   live in the closure, which may be gone by the time the coroutine resumes).
// - GCC 12 cannot keep an array temporary alive across a co_await ("array used as initializer"):
//   no string literal or braced list (std::initializer_list) in the full expression of a
//   co_await — build the QJsonObject, QJsonArray or QList in a local first.
// - A callback given to awaitCallback() must be called later, from the event loop, exactly once.
//   If its owner is destroyed first (the scenario is torn down mid-step), the suspended coroutine
//   is never resumed and its frame is not freed: the price of never touching freed memory.
// - Single-threaded: resume happens on the thread that runs the callback (the GUI/main thread).

#include <coroutine>
#include <exception>
#include <functional>
#include <optional>
#include <utility>

namespace cs::demo {

// A lazily started coroutine that produces a T. Either co_await it from another coroutine, or
// start it with then(callback), which hands over the frame: it frees itself when done.
template <typename T>
class [[nodiscard]] Async
{
public:
    struct promise_type {
        std::optional<T> value;
        std::coroutine_handle<> continuation;
        std::function<void(T)> callback;

        Async get_return_object() { return Async(std::coroutine_handle<promise_type>::from_promise(*this)); }
        std::suspend_always initial_suspend() noexcept { return {}; }
        struct Final {
            bool await_ready() noexcept { return false; }
            std::coroutine_handle<> await_suspend(std::coroutine_handle<promise_type> self) noexcept
            {
                promise_type &p = self.promise();
                if (p.continuation)
                    return p.continuation; // awaited: the awaiting coroutine takes the value, then frees us
                std::function<void(T)> callback = std::move(p.callback);
                T value = std::move(*p.value);
                self.destroy(); // detached: nothing else refers to this frame
                if (callback)
                    callback(std::move(value));
                return std::noop_coroutine();
            }
            void await_resume() noexcept {}
        };
        Final final_suspend() noexcept { return {}; }
        void return_value(T v) { value = std::move(v); }
        void unhandled_exception() { std::terminate(); }
    };

    Async(Async &&other) noexcept : m_handle(std::exchange(other.m_handle, {})) {}
    Async(const Async &) = delete;
    Async &operator=(const Async &) = delete;
    Async &operator=(Async &&) = delete;
    ~Async()
    {
        if (m_handle)
            m_handle.destroy();
    }

    // Starts the coroutine; callback receives its result. The frame frees itself at the end.
    void then(std::function<void(T)> callback) &&
    {
        auto handle = std::exchange(m_handle, {});
        handle.promise().callback = std::move(callback);
        handle.resume();
    }

    bool await_ready() const noexcept { return false; }
    std::coroutine_handle<> await_suspend(std::coroutine_handle<> awaiting) noexcept
    {
        m_handle.promise().continuation = awaiting;
        return m_handle;
    }
    T await_resume() { return std::move(*m_handle.promise().value); }

private:
    explicit Async(std::coroutine_handle<promise_type> handle) : m_handle(handle) {}
    std::coroutine_handle<promise_type> m_handle;
};

// Awaits a callback-style operation: start receives the function to call with the result.
template <typename T>
class CallbackAwaiter
{
public:
    using Start = std::function<void(std::function<void(T)>)>;
    explicit CallbackAwaiter(Start start) : m_start(std::move(start)) {}

    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> handle)
    {
        m_start([this, handle](T value) {
            m_value = std::move(value);
            handle.resume();
        });
    }
    T await_resume() { return std::move(*m_value); }

private:
    Start m_start;
    std::optional<T> m_value;
};

template <typename T>
CallbackAwaiter<T> awaitCallback(typename CallbackAwaiter<T>::Start start)
{
    return CallbackAwaiter<T>(std::move(start));
}

} // namespace cs::demo
