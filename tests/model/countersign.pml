/*
 * countersign.pml — a Promela model of Countersign's execution protocol for ONE approved action:
 * claim -> lease -> send -> record -> rescue -> reconcile (docs/EXECUTION.md, docs/MODEL.md).
 *
 * Processes: two countersignd instances on different hosts (Instance 1 and 2: each one executor
 * worker of server/executor.cpp that also runs reconciliation rounds, server/reconciler.cpp, and
 * the recovery sweep, as the code's workers do), a supervisor (EvidenceStore::reconcile from the
 * console), the ledger's clock (lease expiry, the key window's end by the ledger's clock), the
 * provider's own clock (it may run ahead of the ledger's; the provider prunes the key by it) and a
 * webhook (paysim's refund event, stored as evidence). The ledger is the global state below; each
 * ledger transaction is ONE atomic step named like the C++ function it models
 * (server/ledger/executionstore.cpp, server/ledger/evidencestore.cpp). The provider (simulator/,
 * Stripe's idempotency semantics) is the inline `arrive`.
 *
 * Pauses: Promela interleaves freely and assumes no fairness, so every process may stop for any
 * time between any two of its steps — a GC pause, SIGSTOP, a slow disk — while the others and the
 * clock go on (its lease may expire meanwhile). Crashes: before every step a process may die;
 * it restarts with a fresh incarnation id (the executor id is unique per incarnation), its local
 * state lost, the ledger and the provider unchanged (MAYBE_CRASH before every step).
 *
 * Checked (DESIGN.md "Invariants"): 1 (at most one provider refund; exactly one iff COMPLETED),
 * 4 (one key per action), 6 (a timeout never becomes REJECTED directly), 8 (one executor per
 * action at a time), and 3 (the attempt row is committed before its request leaves), each as an
 * assert on a hidden variable named after the invariant, so pan prints its name.
 *
 * Mutants (each MUST fail verification; tests/model/CMakeLists.txt):
 *   -DNO_FENCING            writes of a claimed action do not check the writer's lease
 *   -DSEND_ON_LOST_COMMIT   the executor sends when the claim's COMMIT answer was lost, unread
 *   -DRESCUE_AS_FAILED      recoverExpiredLeases marks an expired EXECUTING action REJECTED
 *   -DBLIND_RESEND          recoverExpiredLeases re-queues it PENDING with a fresh key
 *   -DLEDGER_CLOCK_WINDOW   the round judges the key window on the ledger's clock alone, and resends
 *                           after a lookup that got no answer (issue 33: the code before the fix)
 *   -DRESEND_WITHOUT_DATE   both clocks when the lookup was answered, but a lookup with no answer
 *                           (no Date) is judged on the ledger's clock alone and may resend
 */

#ifndef MAXCRASH
#define MAXCRASH 1   /* crashes per process */
#endif
#ifndef MAXBUSY
#define MAXBUSY 1    /* ExecutionConfig::maxBusyRetries: same-key resends after 429/409 */
#endif
#ifndef MAXTRIES
#define MAXTRIES 2   /* ExecutionConfig::maxReconcileTries */
#endif

/* ActionState (models/actionstate.h) */
#define PENDING    0
#define EXECUTING  1
#define CU         2 /* CONFIRMATION_UNKNOWN */
#define COMPLETED  3
#define REJECTED   4
#define REVIEW     5 /* REQUIRES_REVIEW */

/* What the provider answered (Attempt::Outcome, as AttemptPolicy classifies it) */
#define A_NONE 0
#define A_OK   1 /* 2xx succeeded (first answer or Idempotent-Replayed) */
#define A_REJ  2 /* definitive 4xx */
#define A_UNK  3 /* timeout, reset, 5xx: the request may or may not have committed */
#define A_BUSY 4 /* 429 / 409 idempotency_key_in_use: wait, same key again */
#define EV_HUMAN 5 /* evidence of a supervisor's reconciliation: a NOT_FOUND lookup */

/* Triggers (models/actionstate.h) a finish or a lookup applies */
#define T_NONE 0
#define T_SUCC 1 /* ProviderSucceeded */
#define T_REJ  2 /* ProviderRejected */
#define T_UNK  3 /* OutcomeUnknown */
#define T_STOP 4 /* StopForReview */

/* LedgerResult codes the callers look at */
#define R_OK        0
#define R_REFUSED   1 /* LeaseLost, Conflict, IllegalTransition: nothing written */
#define R_STORAGE   2 /* connection lost before COMMIT: nothing written */
#define R_LOST_OK   3 /* COMMIT reached the server, its answer did not: outcome unknown ... */
#define R_LOST_ABRT 4 /* ... or the transaction was rolled back; pg_xact_status tells which */

/* The provider's idempotency memory for a key (simulator/idempotencystore.h) */
#define P_NONE   0
#define P_REFUND 1
#define P_REJECT 2

/* ---- the ledger: the action row and its attempts (server/ledger/ledgerrows.h ActionRow) ---- */
byte st = PENDING;
byte owner = 0;        /* lease_owner: an executor incarnation id, 0 = none */
bool live = 0;         /* lease_expires_at > the ledger's clock (the database's clock on PostgreSQL) */
byte nattempts = 0;    /* attempt rows (append-only) */
byte openSeq = 0;      /* seq of the open attempt, 0 = none (at most one is ever open) */
byte openBy = 0;       /* its executor */
byte key = 1;          /* idempotency_key, minted at approval */
byte firstKey = 0;     /* the key of attempt 1 */
byte rtries = 0;       /* reconcile_schedule.tries */

/* ---- the provider (paysim) ---- */
byte pmem[3];          /* per key: what it saved */
byte refunds = 0;      /* ground truth: refunds that carry this action's id */

/* ---- the clocks ---- */
bool windowOpen = 1;   /* the ledger's now < first attempt's start (ledger clock) + key window - margin */

/* The provider's clock (paysim's; what the Date header of its answers carries), against the same
 * point, first attempt start (ledger clock) + key window - margin, and against its own prune point
 * for the key, key creation (provider clock) + key window. It runs ahead of the ledger's clock by
 * any amount (a nondeterministic jump) but, at the first send, not behind it by more than the margin:
 * so the prune point is never before the window's end and a Date before the end means the key is
 * still kept. It only moves forward. */
#define PC_OPEN   0    /* provider now < first attempt + key window - margin */
#define PC_LATE   1    /* past that; the key is still kept */
#define PC_PRUNED 2    /* provider now >= key creation + key window: the provider pruned the key */
byte pclock = PC_OPEN;
#define pruned (pclock == PC_PRUNED)

/* ---- webhook evidence (EvidenceStore::recordWebhookEvent, webhook_events) ---- */
#define W_NONE    0
#define W_STORED  1    /* a refund event stored but not applied (an attempt was open, or EXECUTING) */
#define W_WEIGHED 2    /* a round resolved the action from it, before any resend */
byte evid = W_NONE;

/* ---- timing assumptions (docs/MODEL.md "What is assumed") ----
 * transit: processes between their last fenced write (claim, renewLease, beginRetryAttempt) and
 * their request's arrival at the provider: a lease outlives that (lease >= 2 x request timeout +
 * 1 s), so the clock does not expire a lease meanwhile. guard: the reconciler between its key-window
 * check (the Date of its lookup's answer) and its request's arrival: the margin (1 h) outlives that,
 * so the provider's clock does not reach the key's prune point meanwhile. */
byte transit = 0;
byte guard = 0;
bool leaseLost = 0; /* ghost: some finishAttempt or renewLease answered LeaseLost (probes) */

/* ---- invariants: hidden (not in the state vector), named so pan's message names them ---- */
hidden byte invariant_1_at_most_one_refund;
hidden byte invariant_1_exactly_one_iff_completed;
hidden byte invariant_3_attempt_committed_before_send;
hidden byte invariant_4_one_key_per_action;
hidden byte invariant_6_timeout_never_rejected;
hidden byte invariant_8_one_executor_at_a_time;

#define INV1 \
    invariant_1_at_most_one_refund = (refunds <= 1); \
    assert(invariant_1_at_most_one_refund); \
    invariant_1_exactly_one_iff_completed = ((st != COMPLETED || refunds == 1) && (st != REJECTED || refunds == 0)); \
    assert(invariant_1_exactly_one_iff_completed)

/* A transition into REJECTED names its evidence: a definitive 4xx or a supervisor's NOT_FOUND. */
#define INV6(evidence) \
    invariant_6_timeout_never_rejected = (evidence == A_REJ || evidence == EV_HUMAN); \
    assert(invariant_6_timeout_never_rejected)

/* An attempt row's key (openAttemptOf copies the action's key). */
#define INV4(k) \
    if :: firstKey == 0 -> firstKey = k :: else -> skip fi; \
    invariant_4_one_key_per_action = (k == firstKey); \
    assert(invariant_4_one_key_per_action)

/* State changes clear the lease (applyTrigger -> clearLease). */
#define SET_STATE(s) st = s; owner = 0; live = 0

/* ===================== ledger transactions =====================
 * Each inline is the body of ONE transaction; its caller runs it inside `atomic`, preceded by
 * MAYBE_CRASH (the process may die before the step) — so no other process sees half of it. */

#ifdef BLIND_RESEND
#define CLAIMABLE (st == PENDING)
#else
#define CLAIMABLE (st == PENDING && nattempts == 0) /* claimRow: "PENDING but already has attempts" */
#endif

/* ExecutionStore::claimNext -> claimNextIn -> claimRow: the oldest approved PENDING action
 * becomes EXECUTING under `me`'s lease with its open attempt row (the same key), in one
 * transaction (PostgreSQL: SELECT ... FOR UPDATE SKIP LOCKED). Its COMMIT may be answered,
 * committed with the answer lost, or rolled back with the answer lost (outcome unknown to the
 * caller), or refused/rolled back (nothing claimed; the caller tries again later). */
inline claim(me, res, seq, k, tr)
{
    if
    :: res = R_OK
    :: res = R_LOST_OK
    :: res = R_LOST_ABRT
    :: res = R_STORAGE
    fi;
    if
    :: res == R_OK || res == R_LOST_OK ->
        nattempts++;
        INV4(key);
        st = EXECUTING; owner = me; live = 1;
        openSeq = nattempts; openBy = me;
        seq = nattempts; k = key;
        transit++; tr = 1;
        printf("| %d claim: EXECUTING, attempt %d (key %d) committed (COMMIT answered: %d)\n", me, seq, k, res == R_OK)
    :: res == R_LOST_ABRT -> printf("| %d claim: rolled back, COMMIT answer lost\n", me)
    :: else -> skip
    fi
}

/* ExecutionStore::finishAttempt -> finishAttemptIn: finishes open attempt `seq` and applies
 * `trig` in the same transaction, under the row lock, only if `me` still holds a live lease
 * (the fence); otherwise LeaseLost and nothing recorded. An illegal transition rolls it all back. */
inline finishAttempt(me, seq, trig, a, res)
{
    if
    :: openSeq != seq -> res = R_REFUSED; /* "already finished" (recovery, acquireLease) */
        printf("| %d finishAttempt %d: refused, already finished\n", me, seq)
#ifndef NO_FENCING
    :: openSeq == seq && !(owner == me && live) -> res = R_REFUSED; leaseLost = 1; /* LeaseLost */
        printf("| %d finishAttempt %d: LeaseLost, nothing recorded\n", me, seq)
#endif
    :: else ->
        if
        :: res = R_STORAGE /* rolled back: the attempt stays open for recovery */
        :: res = R_OK
        fi;
        if
        :: res == R_STORAGE -> skip
        :: res == R_OK && trig == T_NONE -> openSeq = 0
        :: res == R_OK && trig == T_SUCC && (st == EXECUTING || st == CU) ->
            openSeq = 0; SET_STATE(COMPLETED)
        :: res == R_OK && trig == T_REJ && (st == EXECUTING || st == CU) ->
            INV6(a); /* checkFinish: ProviderRejected needs a Rejected outcome */
            openSeq = 0; SET_STATE(REJECTED)
        :: res == R_OK && trig == T_UNK && st == EXECUTING ->
            openSeq = 0; SET_STATE(CU)
        :: else -> res = R_REFUSED /* IllegalTransition */
        fi;
        printf("| %d finishAttempt %d (answer %d, trigger %d): result %d, state %d\n", me, seq, a, trig, res, st);
        INV1
    fi
}

/* ExecutionStore::renewLease: EXECUTING or CONFIRMATION_UNKNOWN, live lease held by me. */
inline renewLease(me, res)
{
    if
#ifdef NO_FENCING
    :: st == EXECUTING || st == CU -> res = R_OK; live = 1; printf("| %d renewLease: ok\n", me)
#else
    :: (st == EXECUTING || st == CU) && owner == me && live -> res = R_OK; printf("| %d renewLease: ok\n", me)
#endif
    :: else -> res = R_REFUSED; leaseLost = 1; printf("| %d renewLease: LeaseLost\n", me)
    fi
}

/* ExecutionStore::beginRetryAttempt: a new open attempt with the SAME key, under a live lease
 * held by me, when none is open. */
inline beginRetryAttempt(me, res, seq, k, tr)
{
    if
#ifdef NO_FENCING
    :: (st == CU || st == EXECUTING) && openSeq == 0 ->
#else
    :: (st == CU || st == EXECUTING) && owner == me && live && openSeq == 0 ->
#endif
        nattempts++;
        INV4(key);
        openSeq = nattempts; openBy = me;
        seq = nattempts; k = key;
        res = R_OK; transit++; tr = 1;
        printf("| %d beginRetryAttempt: attempt %d (key %d) committed\n", me, seq, k)
    :: else -> res = R_REFUSED; printf("| %d beginRetryAttempt: refused\n", me)
    fi
}

/* ExecutionStore::recoverExpiredLeases (Executor::start, Executor::sweepIfDue): EXECUTING with
 * an expired lease -> CONFIRMATION_UNKNOWN, never failed or rejected; CONFIRMATION_UNKNOWN with
 * an expired lease -> lease cleared; open attempts finished as unknown in both. */
#define EXPIRED ((st == EXECUTING || (st == CU && owner != 0)) && !live)
inline recoverExpiredLeases()
{
    printf("| recoverExpiredLeases: lease of %d expired, open attempt %d finished as unknown\n", owner, openSeq);
    openSeq = 0;
    if
    :: st == EXECUTING ->
#if defined(RESCUE_AS_FAILED)
        INV6(A_UNK);
        SET_STATE(REJECTED)
#elif defined(BLIND_RESEND)
        SET_STATE(PENDING);
        if :: key < 2 -> key++ :: else -> skip fi /* "mint a new key and send again" */
#else
        SET_STATE(CU)
#endif
    :: else -> owner = 0; live = 0
    fi;
    INV1
}

/* ExecutionStore::acquireLease (Reconciler::reconcile), with EvidenceStore::scheduleReconciliation
 * counting the round: CONFIRMATION_UNKNOWN only, refused while another live lease exists
 * (LEASABLE is its condition); an expired holder's open attempt is finished as unknown first. */
#define LEASABLE(me) (st == CU && !(live && owner != me))
inline acquireLease(me)
{
    if :: !live -> openSeq = 0 :: else -> skip fi;
    owner = me; live = 1;
    printf("| %d acquireLease (round %d)\n", me, rtries + 1);
    if :: rtries < MAXTRIES -> rtries++ :: else -> skip fi /* (saturates: only ">= max" matters) */
}

/* ExecutionStore::releaseLease: not while EXECUTING or while an attempt is open. */
inline releaseLease(me)
{
    if
    :: owner == me && st != EXECUTING && openSeq == 0 -> owner = 0; live = 0
    :: else -> skip
    fi
}

/* EvidenceStore::recordLookup with a trigger: refused while an attempt is open (Conflict; the
 * lookup is still stored, without a transition). No lease check, as in the code: what a lookup
 * found stays true (refunds never disappear). */
inline recordLookup(trig)
{
    if
    :: openSeq == 0 && trig == T_SUCC && st == CU -> SET_STATE(COMPLETED)
    :: openSeq == 0 && trig == T_STOP && st == CU -> SET_STATE(REVIEW)
    :: else -> skip
    fi;
    printf("| recordLookup (trigger %d): state %d\n", trig, st);
    INV1
}

/* ====================== the provider (paysim: Stripe's idempotency) ====================== */

/* One request with Idempotency-Key k reaches the provider: a new key may commit a refund and
 * answer, commit and lose the answer, reject definitively (saved), fail before committing (5xx,
 * reset, timeout: nothing saved) or answer 429 before the idempotency layer. A saved key replays
 * (or its answer is lost, or 429). Then: the sender's attempt row is committed and open (3) and
 * the sender holds the live lease (8). */
inline arrive(who, k, a)
{
    if
    :: pmem[k] == P_NONE ->
        if
        :: pmem[k] = P_REFUND; refunds++; a = A_OK
        :: pmem[k] = P_REFUND; refunds++; a = A_UNK
        :: pmem[k] = P_REJECT; a = A_REJ
        :: a = A_UNK
        :: a = A_BUSY
        fi
    :: pmem[k] == P_REFUND -> if :: a = A_OK :: a = A_UNK :: a = A_BUSY fi
    :: pmem[k] == P_REJECT -> if :: a = A_REJ :: a = A_UNK :: a = A_BUSY fi
    fi;
    printf("| %d request with key %d reaches the provider: answer %d, refunds now %d\n", who, k, a, refunds);
    INV1;
    invariant_3_attempt_committed_before_send = (openSeq != 0 && openBy == who);
    assert(invariant_3_attempt_committed_before_send);
    invariant_8_one_executor_at_a_time = (owner == who && live);
    assert(invariant_8_one_executor_at_a_time)
}

/* ================================ the processes ================================ */

/* The process may die before its next step. */
#define MAYBE_CRASH if :: true -> skip :: ncrash < MAXCRASH -> goto crash fi

#define RESET seq = 0; k = 0; a = 0; res = 0; busy = 0; trig = 0; found = 0; ans = 0

/* The round's key window (Reconciler::round, sameKeyRetry: KeyWindow::judge in server/keywindow.h,
 * with the ProviderClock read from the lookup's Date), judged in the step of the lookup: open
 * only while BOTH clocks say so, max(ledger now, provider now as the Date of this round's answer)
 * < first attempt start + window - margin. No answer (no Date): the provider's clock is unknown and
 * nothing is resent this round. The mutant judges it on the ledger's clock alone (issue 33). */
#if defined(LEDGER_CLOCK_WINDOW)
#define KEY_WINDOW_CLOSED (!windowOpen)
#define PCLOCK_UNKNOWN 0
#elif defined(RESEND_WITHOUT_DATE)
#define KEY_WINDOW_CLOSED (!windowOpen || (ans && pclock != PC_OPEN))
#define PCLOCK_UNKNOWN 0
#else
#define KEY_WINDOW_CLOSED (!windowOpen || (ans && pclock != PC_OPEN))
#define PCLOCK_UNKNOWN (!ans)
#endif

#define TRIGGER_FROM_EXECUTING \
    if :: a == A_OK -> trig = T_SUCC :: a == A_REJ -> trig = T_REJ :: else -> trig = T_UNK fi
#define TRIGGER_FROM_UNKNOWN \
    if :: a == A_OK -> trig = T_SUCC :: a == A_REJ -> trig = T_REJ :: else -> trig = T_NONE fi

/* One countersignd instance on its own host: one executor worker (Executor::workerLoop), which
 * also runs reconciliation rounds (Reconciler::reconcileNextDue) and the recovery sweep, as the
 * code's workers do. */
proctype Instance(byte id)
{
    byte me = id, seq, k, a, res, busy, trig, found, ncrash;
    bool tr, gd, ans;
start:
    atomic { if :: EXPIRED -> recoverExpiredLeases() :: else -> skip fi }; /* Executor::start, before any worker */
end_idle:
    do
    :: atomic { EXPIRED -> recoverExpiredLeases() } /* Executor::sweepIfDue */

    /* ---- Executor::workerLoop -> execute ---- */
    :: atomic { CLAIMABLE -> MAYBE_CRASH; claim(me, res, seq, k, tr);
                if :: res == R_STORAGE -> RESET; goto end_idle :: else -> skip fi };
        if
        :: res == R_OK -> skip
        :: else ->
#ifdef SEND_ON_LOST_COMMIT
            /* mutant: takes a lost COMMIT answer for a commit and sends */
            atomic { if :: !tr -> seq = nattempts + 1; k = key; transit++; tr = 1 :: else -> skip fi }
#else
            /* the COMMIT's answer was lost: LedgerDatabase reads pg_xact_status(xid) back before
             * anything is sent; rolled back -> nothing was claimed */
            atomic { MAYBE_CRASH; if :: res == R_LOST_ABRT -> RESET; goto end_idle :: else -> skip fi }
#endif
        fi;
send:   /* StripeClient::createRefund with the attempt's key; the row is committed */
        atomic { MAYBE_CRASH; arrive(me, k, a); transit--; tr = 0 };
        /* AttemptPolicy::decide(..., EXECUTING), then Committer::commit -> finishAttemptIn */
        atomic {
            MAYBE_CRASH;
            if
            :: a == A_BUSY && busy < MAXBUSY ->
                /* 429 / 409: recorded at once, then wait and send the same key again */
                finishAttempt(me, seq, T_NONE, a, res);
                if :: res != R_OK -> RESET; goto end_idle :: else -> skip fi
            :: else ->
                TRIGGER_FROM_EXECUTING; /* 429 after maxBusyRetries: unknown, to the reconciler */
                finishAttempt(me, seq, trig, a, res);
                RESET; goto end_idle
            fi
        };
        /* Executor::pause(wait): the lease may expire meanwhile */
        atomic { MAYBE_CRASH; renewLease(me, res); if :: res != R_OK -> RESET; goto end_idle :: else -> skip fi };
        atomic { MAYBE_CRASH; beginRetryAttempt(me, res, seq, k, tr);
                 if :: res != R_OK -> RESET; goto end_idle :: else -> busy++ fi };
        goto send

    /* ---- Reconciler::reconcileNextDue -> reconcile -> round -> sameKeyRetry ---- */
    :: atomic { LEASABLE(me) -> MAYBE_CRASH; acquireLease(me) };
        /* Evidence already in the ledger is weighed first (Reconciler::resolveFromStored): a refund
         * event stored while an attempt was open (not applied then) resolves the action; nothing is
         * resent. (One step with the lookup: a webhook stored after this read is the same as one
         * stored after the lookup. The code weighs it again right before the attempt row; weighing
         * it once here only lets the model resend more often than the code.)
         * Then searchRefundsForAction (by metadata, then by id): eventually consistent, so a refund
         * that exists may not be listed yet; a failed lookup is like NOT_FOUND. Any HTTP answer
         * (found, not found, a failed lookup's 503) carries the provider's clock in its Date header;
         * a lookup may also get no answer at all (reset, timeout): the provider's clock is unknown. */
        atomic {
            MAYBE_CRASH;
            if
            :: evid == W_STORED && openSeq == 0 ->
                printf("| %d weighs the stored refund event first\n", me);
                recordLookup(T_SUCC); evid = W_WEIGHED; releaseLease(me); RESET; goto end_idle
            :: else -> skip
            fi;
            if
            :: ans = 1; found = refunds
            :: ans = 1; found = 0
            :: ans = 0; found = 0
            fi;
            if
            :: ans -> printf("| %d lookup answered (Date: provider clock %d; ledger window open %d): found %d\n",
                             me, pclock, windowOpen, found)
            :: else -> printf("| %d lookup got no answer (no Date; ledger window open %d)\n", me, windowOpen)
            fi;
            if
            :: found == 1 -> recordLookup(T_SUCC); releaseLease(me); RESET; goto end_idle /* applyEvidence */
            :: found > 1 -> recordLookup(T_STOP); releaseLease(me); RESET; goto end_idle /* contradictory */
            :: found == 0 && KEY_WINDOW_CLOSED ->
                /* outside the key window by either clock: never a send; refund events, then a human */
                if :: found = refunds :: found = 0 fi;
                if :: found == 1 -> recordLookup(T_SUCC) :: else -> recordLookup(T_STOP) fi;
                releaseLease(me); RESET; goto end_idle
            :: found == 0 && !KEY_WINDOW_CLOSED && rtries >= MAXTRIES ->
                recordLookup(T_STOP); releaseLease(me); RESET; goto end_idle /* gave up after N rounds */
            :: found == 0 && !KEY_WINDOW_CLOSED && rtries < MAXTRIES && PCLOCK_UNKNOWN ->
                /* no Date: the provider's clock is unknown, nothing is resent; rescheduled */
                printf("| %d no resend this round: the provider's clock is unknown\n", me);
                releaseLease(me); RESET; goto end_idle
            :: found == 0 && !KEY_WINDOW_CLOSED && rtries < MAXTRIES && !PCLOCK_UNKNOWN ->
                /* the window, by both clocks, re-checked right before the attempt row */
                printf("| %d inside the key window: same-key retry\n", me);
                guard++; gd = 1; ans = 0
            fi
        };
        atomic { MAYBE_CRASH; beginRetryAttempt(me, res, seq, k, tr);
                 if :: res != R_OK -> guard--; gd = 0; releaseLease(me); RESET; goto end_idle :: else -> skip fi };
        atomic { MAYBE_CRASH; arrive(me, k, a); transit--; tr = 0; guard--; gd = 0 };
        /* AttemptPolicy::decide(..., CONFIRMATION_UNKNOWN): unknown or busy -> rescheduled */
        atomic { MAYBE_CRASH; TRIGGER_FROM_UNKNOWN; finishAttempt(me, seq, trig, a, res); releaseLease(me); RESET };
        goto end_idle
    od;

crash: /* a request on the wire when the process died may still arrive, or not; its answer is lost */
    atomic {
        if
        :: tr -> if :: arrive(me, k, a) :: skip fi; transit--; tr = 0
        :: else -> skip
        fi;
        if :: gd -> guard--; gd = 0 :: else -> skip fi;
        printf("| %d crashes; restarts as %d\n", me, me + 2);
        ncrash++; me = me + 2;
        RESET
    };
    goto start
}

/* A supervisor's reconciliation (EvidenceStore::reconcile: REQUIRES_REVIEW only, with a lookup of
 * this action as evidence; NotCommitted needs a NOT_FOUND lookup taken after the last attempt
 * started). The supervisor's lookup is taken as settled (docs/MODEL.md). */
proctype Supervisor()
{
end_wait:
    atomic {
        st == REVIEW && openSeq == 0 ->
        if
        :: refunds > 0 -> SET_STATE(COMPLETED) /* ConfirmCommitted */
        :: else -> INV6(EV_HUMAN); SET_STATE(REJECTED) /* ConfirmNotCommitted */
        fi;
        printf("| supervisor reconciles: state %d\n", st);
        INV1
    }
}

/* The ledger's clock (the database's on PostgreSQL): leases expire, the key window ends. */
proctype Clock()
{
end_tick:
    do
    :: atomic { live && transit == 0 -> live = 0; printf("| clock: the lease of %d expires\n", owner) } /* a lease expires, its owner paused or not */
    :: atomic {
           windowOpen && nattempts > 0 && transit == 0 && !(st == EXECUTING && live) ->
           windowOpen = 0; printf("| clock: the key window ends (ledger clock)\n") /* first attempt + key window - margin; an executor's lease is long gone */
       }
    od
}

/* The provider's clock, on its own: it may pass the window's end, or jump straight past the key's
 * prune point, while the ledger's clock is still inside the window (issue 33: a day ahead). The
 * provider prunes a saved key by its own clock (once: a key saved after that is kept for the rest
 * of the run, its own prune point a whole window later, beyond the model's horizon). Not while
 * a reconciler's resend is between its lookup's answer (Date before the window's end) and its
 * arrival: the margin outlives that. */
proctype ProviderClock()
{
end_tick:
    do
    :: atomic { pclock == PC_OPEN && nattempts > 0 -> pclock = PC_LATE;
                printf("| provider clock: past first attempt + key window - margin\n") }
    :: atomic { pclock != PC_PRUNED && (pmem[1] != P_NONE || pmem[2] != P_NONE) && guard == 0 ->
                pclock = PC_PRUNED; pmem[1] = P_NONE; pmem[2] = P_NONE;
                printf("| provider clock: key creation + key window passed; it prunes the key (ledger window open: %d)\n",
                       windowOpen) }
    od
}

/* paysim's refund webhook (WebhookReceiver -> EvidenceStore::recordWebhookEvent), delivered once
 * some time after a refund exists (or never: no fairness). Applied (ProviderSucceeded) when the
 * action is CONFIRMATION_UNKNOWN with no attempt open; otherwise (EXECUTING, or an attempt open:
 * Conflict) stored without a transition, for the next round to weigh. */
proctype Webhook()
{
end_wait:
    atomic {
        refunds > 0 ->
        if
        :: st == CU && openSeq == 0 -> recordLookup(T_SUCC)
        :: else -> evid = W_STORED;
            printf("| webhook: refund event stored, not applied (state %d, open attempt %d)\n", st, openSeq)
        fi
    }
}

#ifdef PROBES
/* Reachability probes (check.sh reach writes probes.pml): each probe_N process asserts that its
 * expression never holds, so pan reports "assertion violated probe_N" where it does — proof that
 * the model exercises what the probe names, and that its "errors: 0" is not vacuous. */
#include "probes.pml"
#endif

init
{
    atomic {
        run Instance(1); /* host A */
        run Instance(2); /* host B */
        run Supervisor();
        run Clock();
        run ProviderClock();
        run Webhook();
#ifdef PROBES
        RUN_PROBES;
#endif
    }
}
