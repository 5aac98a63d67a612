<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en_US" sourcelanguage="en_US">
<context>
    <name>cs::ActionQueueModel</name>
    <message numerus="yes">
        <source>Possible duplicate: %n other refund(s) of this charge or order; approving needs a note</source>
        <translation>
            <numerusform>Possible duplicate: %n other refund of this charge or order; approving needs a note</numerusform>
            <numerusform>Possible duplicate: %n other refunds of this charge or order; approving needs a note</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>cs::ApproveDialog</name>
    <message numerus="yes">
        <source>This refund may duplicate %n other(s): write a note saying why both are intended.</source>
        <translation>
            <numerusform>This refund may duplicate %n other: write a note saying why both are intended.</numerusform>
            <numerusform>This refund may duplicate %n others: write a note saying why all are intended.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>cs::AttentionController</name>
    <message numerus="yes">
        <source>%n second(s)</source>
        <translation>
            <numerusform>%n second</numerusform>
            <numerusform>%n seconds</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n minute(s)</source>
        <translation>
            <numerusform>%n minute</numerusform>
            <numerusform>%n minutes</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>cs::AttentionNotifier</name>
    <message numerus="yes">
        <source>%n to review</source>
        <translation>
            <numerusform>%n to review</numerusform>
            <numerusform>%n to review</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n unconfirmed</source>
        <translation>
            <numerusform>%n unconfirmed</numerusform>
            <numerusform>%n unconfirmed</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n to approve</source>
        <translation>
            <numerusform>%n to approve</numerusform>
            <numerusform>%n to approve</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n new to review</source>
        <translation>
            <numerusform>%n new to review</numerusform>
            <numerusform>%n new to review</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n new unconfirmed</source>
        <translation>
            <numerusform>%n new unconfirmed</numerusform>
            <numerusform>%n new unconfirmed</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n new to approve</source>
        <translation>
            <numerusform>%n new to approve</numerusform>
            <numerusform>%n new to approve</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n refund(s) failed</source>
        <translation>
            <numerusform>%n refund failed</numerusform>
            <numerusform>%n refunds failed</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n new failed refund(s)</source>
        <translation>
            <numerusform>%n new failed refund</numerusform>
            <numerusform>%n new failed refunds</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>cs::BulkDecisionDialog</name>
    <message numerus="yes">
        <source>%n done</source>
        <translation>
            <numerusform>%n done</numerusform>
            <numerusform>%n done</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>&lt;span style=&quot;color:%1&quot;&gt;&lt;b&gt;%n not done&lt;/b&gt;&lt;/span&gt;</source>
        <translation>
            <numerusform>&lt;span style=&quot;color:%1&quot;&gt;&lt;b&gt;%n not done&lt;/b&gt;&lt;/span&gt;</numerusform>
            <numerusform>&lt;span style=&quot;color:%1&quot;&gt;&lt;b&gt;%n not done&lt;/b&gt;&lt;/span&gt;</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n sending…</source>
        <translation>
            <numerusform>%n sending…</numerusform>
            <numerusform>%n sending…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Approve %n</source>
        <translation>
            <numerusform>Approve %n</numerusform>
            <numerusform>Approve %n</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Reject %n</source>
        <translation>
            <numerusform>Reject %n</numerusform>
            <numerusform>Reject %n</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source> &amp;nbsp;·&amp;nbsp; &lt;b&gt;%n with warnings not ticked&lt;/b&gt;: held back, not approved with the others</source>
        <translation>
            <numerusform> &amp;nbsp;·&amp;nbsp; &lt;b&gt;%n with warnings not ticked&lt;/b&gt;: held back, not approved with the others</numerusform>
            <numerusform> &amp;nbsp;·&amp;nbsp; &lt;b&gt;%n with warnings not ticked&lt;/b&gt;: held back, not approved with the others</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>&lt;b&gt;%n without an answer&lt;/b&gt; (whether it was decided is unknown: Retry failed sends the same request, so it cannot be decided twice)</source>
        <translation>
            <numerusform>&lt;b&gt;%n without an answer&lt;/b&gt; (whether it was decided is unknown: Retry failed sends the same request, so it cannot be decided twice)</numerusform>
            <numerusform>&lt;b&gt;%n without an answer&lt;/b&gt; (whether they were decided is unknown: Retry failed sends the same requests, so none can be decided twice)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>cs::ChargeRefundModel</name>
    <message numerus="yes">
        <source>No Countersign action made this refund: the provider&apos;s webhooks announced it (%n event(s), the newest %1 at %2) and no read of the charge has listed it yet. It was made in the provider&apos;s dashboard or by another system.</source>
        <translation>
            <numerusform>No Countersign action made this refund: the provider&apos;s webhooks announced it (%n event, the newest %1 at %2) and no read of the charge has listed it yet. It was made in the provider&apos;s dashboard or by another system.</numerusform>
            <numerusform>No Countersign action made this refund: the provider&apos;s webhooks announced it (%n events, the newest %1 at %2) and no read of the charge has listed it yet. It was made in the provider&apos;s dashboard or by another system.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>cs::ChargeWindow</name>
    <message numerus="yes">
        <source>⚠ &lt;b&gt;%n refund(s) not through Countersign — from a webhook&lt;/b&gt; (%1): the provider&apos;s webhooks announced them, made in its dashboard or by another system, and no read of the charge lists them yet. The budget counts them once a read does.</source>
        <translation>
            <numerusform>⚠ &lt;b&gt;%n refund not through Countersign — from a webhook&lt;/b&gt; (%1): the provider&apos;s webhooks announced it, made in its dashboard or by another system, and no read of the charge lists it yet. The budget counts it once a read does.</numerusform>
            <numerusform>⚠ &lt;b&gt;%n refunds not through Countersign — from a webhook&lt;/b&gt; (%1): the provider&apos;s webhooks announced them, made in its dashboard or by another system, and no read of the charge lists them yet. The budget counts them once a read does.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>&lt;b&gt;Refunds at the provider&lt;/b&gt; (%1) — as the read listed them, with what %n webhook event(s) since announced</source>
        <translation>
            <numerusform>&lt;b&gt;Refunds at the provider&lt;/b&gt; (%1) — as the read listed them, with what %n webhook event since announced</numerusform>
            <numerusform>&lt;b&gt;Refunds at the provider&lt;/b&gt; (%1) — as the read listed them, with what %n webhook events since announced</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>&lt;b&gt;Refunds at the provider&lt;/b&gt; (%1) — as %n webhook event(s) announced them; no read lists them</source>
        <translation>
            <numerusform>&lt;b&gt;Refunds at the provider&lt;/b&gt; (%1) — as %n webhook event announced them; no read lists them</numerusform>
            <numerusform>&lt;b&gt;Refunds at the provider&lt;/b&gt; (%1) — as %n webhook events announced them; no read lists them</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>cs::DemoController</name>
    <message numerus="yes">
        <source>Agent traffic: paysim is down for %n second(s); refunds approved now may end in CONFIRMATION_UNKNOWN.</source>
        <translation>
            <numerusform>Agent traffic: paysim is down for %n second; refunds approved now may end in CONFIRMATION_UNKNOWN.</numerusform>
            <numerusform>Agent traffic: paysim is down for %n seconds; refunds approved now may end in CONFIRMATION_UNKNOWN.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Agent traffic waits: %n action(s) are pending; it proposes again once some are decided.</source>
        <translation>
            <numerusform>Agent traffic waits: %n action is pending; it proposes again once it is decided.</numerusform>
            <numerusform>Agent traffic waits: %n actions are pending; it proposes again once some are decided.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>cs::Discrepancy</name>
    <message numerus="yes">
        <source>The provider holds %n refunds for this action</source>
        <translation>
            <numerusform>The provider holds %n refund for this action</numerusform>
            <numerusform>The provider holds %n refunds for this action</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>cs::ExportController</name>
    <message numerus="yes">
        <source>%Ln action(s) written…</source>
        <translation>
            <numerusform>%Ln action written…</numerusform>
            <numerusform>%Ln actions written…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Exported %Ln action(s) to %1 (%2).</source>
        <translation>
            <numerusform>Exported %Ln action to %1 (%2).</numerusform>
            <numerusform>Exported %Ln actions to %1 (%2).</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>cs::GroundTruthView</name>
    <message numerus="yes">
        <source>%n provider refund(s); the ledger agrees with each.</source>
        <translation>
            <numerusform>%n provider refund; the ledger agrees with it.</numerusform>
            <numerusform>%n provider refunds; the ledger agrees with each.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n provider refund(s); %1 disagree with the ledger.</source>
        <translation>
            <numerusform>%n provider refund; %1 disagrees with the ledger.</numerusform>
            <numerusform>%n provider refunds; %1 disagree with the ledger.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>cs::MainWindow</name>
    <message numerus="yes">
        <source>%n decision(s) have not been confirmed by the backend yet. Quitting stops resending them; whether the backend received them is then unknown until you look again. Quit anyway?</source>
        <translation>
            <numerusform>%n decision has not been confirmed by the backend yet. Quitting stops resending it; whether the backend received it is then unknown until you look again. Quit anyway?</numerusform>
            <numerusform>%n decisions have not been confirmed by the backend yet. Quitting stops resending them; whether the backend received them is then unknown until you look again. Quit anyway?</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 (%n selected)</source>
        <translation>
            <numerusform>%1 (%n selected)</numerusform>
            <numerusform>%1 (%n selected)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 acts on one action: %n actions are selected (Approve selected or Reject selected decides them together)</source>
        <translation>
            <numerusform>%1 acts on one action: %n action is selected (Approve selected or Reject selected decides them together)</numerusform>
            <numerusform>%1 acts on one action: %n actions are selected (Approve selected or Reject selected decides them together)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>cs::OfflineBanner</name>
    <message numerus="yes">
        <source> %n decision(s) will be sent again as the same request as soon as it answers, so none can apply twice.</source>
        <translation>
            <numerusform> %n decision will be sent again as the same request as soon as it answers, so it cannot apply twice.</numerusform>
            <numerusform> %n decisions will be sent again as the same requests as soon as it answers, so none can apply twice.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>cs::PayloadDiffWidget</name>
    <message numerus="yes">
        <source>&lt;b&gt;Changed resubmission #%1&lt;/b&gt; by %2 at %3, under the same client reference. %n field(s) differ: %4.</source>
        <translation>
            <numerusform>&lt;b&gt;Changed resubmission #%1&lt;/b&gt; by %2 at %3, under the same client reference. %n field differs: %4.</numerusform>
            <numerusform>&lt;b&gt;Changed resubmission #%1&lt;/b&gt; by %2 at %3, under the same client reference. %n fields differ: %4.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>cs::QueueView</name>
    <message numerus="yes">
        <source>%n action(s)</source>
        <translation>
            <numerusform>%n action</numerusform>
            <numerusform>%n actions</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n new</source>
        <translation>
            <numerusform>%n new</numerusform>
            <numerusform>%n new</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n action(s) arrived out of view; click to show them</source>
        <translation>
            <numerusform>%n action arrived out of view; click to show it</numerusform>
            <numerusform>%n actions arrived out of view; click to show them</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n new action(s) out of view</source>
        <translation>
            <numerusform>%n new action out of view</numerusform>
            <numerusform>%n new actions out of view</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>cs::ScoreSheetDialog</name>
    <message numerus="yes">
        <source>%1 of %n decision(s) right</source>
        <translation>
            <numerusform>%1 of %n decision right</numerusform>
            <numerusform>%1 of %n decisions right</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>cs::SettlementView</name>
    <message numerus="yes">
        <source>%n scheduled check(s) so far</source>
        <translation>
            <numerusform>%n scheduled check so far</numerusform>
            <numerusform>%n scheduled checks so far</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>cs::TimelineWidget</name>
    <message numerus="yes">
        <source>#%1–#%2 %3 (%n webhook event(s))</source>
        <comment>lookups at one instant saying the same</comment>
        <translation>
            <numerusform>#%1–#%2 %3 (%n webhook event)</numerusform>
            <numerusform>#%1–#%2 %3 (%n webhook events)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>#%1–#%2 %3 (%n lookup(s))</source>
        <comment>lookups at one instant saying the same</comment>
        <translation>
            <numerusform>#%1–#%2 %3 (%n lookup)</numerusform>
            <numerusform>#%1–#%2 %3 (%n lookups)</numerusform>
        </translation>
    </message>
</context>
</TS>
