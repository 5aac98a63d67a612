<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE" sourcelanguage="en_US">
<context>
    <name>cs::ActionDetail</name>
    <message>
        <source>state: %1 → %2</source>
        <translation>Zustand: %1 → %2</translation>
    </message>
    <message>
        <source>approved (version %1) by %2</source>
        <translation>freigegeben (Version %1) von %2</translation>
    </message>
    <message>
        <source>rejected by %1: %2</source>
        <translation>abgelehnt von %1: %2</translation>
    </message>
    <message>
        <source>signed by %1 (%2 of %3 approvals)</source>
        <translation>unterschrieben von %1 (%2 von %3 Freigaben)</translation>
    </message>
    <message>
        <source>approval version: %1 → %2</source>
        <translation>Freigabeversion: %1 → %2</translation>
    </message>
    <message>
        <source>idempotency key: %1 → %2</source>
        <translation>Idempotenzschlüssel: %1 → %2</translation>
    </message>
    <message>
        <source>none</source>
        <translation>keiner</translation>
    </message>
    <message>
        <source>attempt #%1 sent by %2 (%3)</source>
        <translation>Versuch #%1 gesendet von %2 (%3)</translation>
    </message>
    <message>
        <source>lookup #%1 by %2: %3</source>
        <translation>Abfrage #%1 von %2: %3</translation>
    </message>
    <message>
        <source>reconciled by %1: %2</source>
        <translation>abgeglichen von %1: %2</translation>
    </message>
    <message>
        <source>a changed resubmission was caught (#%1 by %2)</source>
        <translation>eine geänderte erneute Einreichung wurde abgefangen (#%1 von %2)</translation>
    </message>
    <message>
        <source>follow-up %1 proposed</source>
        <translation>Folgeaktion %1 vorgeschlagen</translation>
    </message>
    <message>
        <source>state version: %1 → %2</source>
        <translation>Zustandsversion: %1 → %2</translation>
    </message>
    <message>
        <source>refund %1: %2</source>
        <translation>Erstattung %1: %2</translation>
    </message>
    <message>
        <source>refund %1 %2: %3</source>
        <translation>Erstattung %1 %2: %3</translation>
    </message>
    <message>
        <source>refund failure closed by %1 without re-sending: %2</source>
        <translation>fehlgeschlagene Erstattung von %1 ohne erneutes Senden geschlossen: %2</translation>
    </message>
    <message>
        <source>failed refund re-proposed by %1 as follow-up %2</source>
        <translation>fehlgeschlagene Erstattung von %1 als Folgeaktion %2 neu vorgeschlagen</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>discrepancy closed by %1: %2</source>
        <translation>Abweichung von %1 geschlossen: %2</translation>
    </message>
    <message>
        <source>why it needs review: %1</source>
        <translation>warum sie geprüft werden muss: %1</translation>
    </message>
</context>
<context>
    <name>cs::ActionDetailPane</name>
    <message>
        <source>Select an action in the queue.</source>
        <translation>Wählen Sie eine Aktion in der Warteschlange aus.</translation>
    </message>
    <message>
        <source>&lt;b&gt;The agent&apos;s reasons&lt;/b&gt;</source>
        <translation>&lt;b&gt;Die Begründung des Agenten&lt;/b&gt;</translation>
    </message>
    <message>
        <source>Action</source>
        <translation>Aktion</translation>
    </message>
    <message>
        <source>Target</source>
        <translation>Ziel</translation>
    </message>
    <message>
        <source>Order</source>
        <translation>Bestellung</translation>
    </message>
    <message>
        <source>Amount</source>
        <translation>Betrag</translation>
    </message>
    <message>
        <source>Refund reason</source>
        <translation>Erstattungsgrund</translation>
    </message>
    <message>
        <source>Provider</source>
        <translation>Anbieter</translation>
    </message>
    <message>
        <source>Idempotency key</source>
        <translation>Idempotenzschlüssel</translation>
    </message>
    <message>
        <source>Request fingerprint</source>
        <translation>Fingerabdruck der Anfrage</translation>
    </message>
    <message>
        <source>Approval version</source>
        <translation>Freigabeversion</translation>
    </message>
    <message>
        <source>State</source>
        <translation>Zustand</translation>
    </message>
    <message>
        <source>Requested by</source>
        <translation>Angefordert von</translation>
    </message>
    <message>
        <source>Client reference</source>
        <translation>Client-Referenz</translation>
    </message>
    <message>
        <source>Adjusts</source>
        <translation>Korrigiert</translation>
    </message>
    <message>
        <source>Proposed</source>
        <translation>Vorgeschlagen</translation>
    </message>
    <message>
        <source>Last change</source>
        <translation>Letzte Änderung</translation>
    </message>
    <message>
        <source>Key window ends</source>
        <translation>Schlüsselfenster endet</translation>
    </message>
    <message>
        <source>Overview</source>
        <translation>Übersicht</translation>
    </message>
    <message>
        <source>Attempt history</source>
        <translation>Versuchsverlauf</translation>
    </message>
    <message>
        <source>Attempt history — every request sent to the provider</source>
        <translation>Versuchsverlauf — jede an den Anbieter gesendete Anfrage</translation>
    </message>
    <message>
        <source>Provider lookups</source>
        <translation>Abfragen beim Anbieter</translation>
    </message>
    <message>
        <source>Provider lookups — what the provider said when asked</source>
        <translation>Abfragen beim Anbieter — was der Anbieter auf Nachfrage sagte</translation>
    </message>
    <message>
        <source>Evidence</source>
        <translation>Nachweise</translation>
    </message>
    <message>
        <source>Approvals</source>
        <translation>Freigaben</translation>
    </message>
    <message>
        <source>Reconciliations</source>
        <translation>Abgleiche</translation>
    </message>
    <message>
        <source>Audit trail</source>
        <translation>Prüfprotokoll</translation>
    </message>
    <message>
        <source>Audit</source>
        <translation>Protokoll</translation>
    </message>
    <message>
        <source>Related actions</source>
        <translation>Verwandte Aktionen</translation>
    </message>
    <message>
        <source>Double-click (or Enter) to open the action</source>
        <translation>Doppelklick (oder Eingabetaste) öffnet die Aktion</translation>
    </message>
    <message>
        <source>Related</source>
        <translation>Verwandt</translation>
    </message>
    <message>
        <source>Payload diff</source>
        <translation>Nutzdatenvergleich</translation>
    </message>
    <message>
        <source>&lt;b&gt;Timeline&lt;/b&gt; — attempts, lookups, state changes and the end of the key window</source>
        <translation>&lt;b&gt;Zeitleiste&lt;/b&gt; — Versuche, Abfragen, Zustandswechsel und das Ende des Schlüsselfensters</translation>
    </message>
    <message>
        <source>%1 refund · %2</source>
        <translation>Erstattung über %1 · %2</translation>
    </message>
    <message>
        <source>State: %1</source>
        <translation>Zustand: %1</translation>
    </message>
    <message>
        <source>order %1</source>
        <translation>Bestellung %1</translation>
    </message>
    <message>
        <source>requested by %1</source>
        <translation>angefordert von %1</translation>
    </message>
    <message>
        <source>proposed %1</source>
        <translation>vorgeschlagen %1</translation>
    </message>
    <message>
        <source>follow-up of %1</source>
        <translation>Folgeaktion zu %1</translation>
    </message>
    <message>
        <source>&lt;b&gt;Requires review.&lt;/b&gt; %1 Nothing will be sent again: look up the provider, then confirm what happened with a lookup as evidence.</source>
        <translation>&lt;b&gt;Prüfung nötig.&lt;/b&gt; %1 Es wird nichts erneut gesendet: Fragen Sie beim Anbieter nach und bestätigen Sie dann mit einer Abfrage als Nachweis, was geschehen ist.</translation>
    </message>
    <message>
        <source>&lt;b&gt;Confirmation unknown.&lt;/b&gt; A request may have reached the provider; its answer was lost. The reconciler retries with the same key inside the key window and looks the refund up; a lookup can settle it now.</source>
        <translation>&lt;b&gt;Bestätigung unbekannt.&lt;/b&gt; Eine Anfrage hat den Anbieter vielleicht erreicht; seine Antwort ging verloren. Der Reconciler wiederholt sie innerhalb des Schlüsselfensters mit demselben Schlüssel und fragt die Erstattung ab; eine Abfrage kann es jetzt klären.</translation>
    </message>
    <message>
        <source>none yet — minted by the approval</source>
        <translation>noch keiner — entsteht mit der Freigabe</translation>
    </message>
    <message>
        <source>not approved</source>
        <translation>nicht freigegeben</translation>
    </message>
    <message>
        <source>v%1</source>
        <translation>v%1</translation>
    </message>
    <message>
        <source>v%1 expired unsent %2 — needs approval again</source>
        <translation>v%1 am %2 ungesendet abgelaufen — braucht erneut eine Freigabe</translation>
    </message>
    <message>
        <source>expires %1 unless sent</source>
        <translation>läuft am %1 ab, falls nicht gesendet</translation>
    </message>
    <message>
        <source>%1 (rule %2, policy v%3)</source>
        <translation>%1 (Regel %2, Richtlinie v%3)</translation>
    </message>
    <message>
        <source>%1
today: %2
7 days: %3</source>
        <translation>%1
heute: %2
7 Tage: %3</translation>
    </message>
    <message>
        <source>not started (no attempt yet)</source>
        <translation>nicht begonnen (noch kein Versuch)</translation>
    </message>
    <message>
        <source>&lt;b&gt;The charge&lt;/b&gt; &amp;nbsp; &lt;a href=&quot;#charge&quot;&gt;Show everything on this charge…&lt;/a&gt;</source>
        <translation>&lt;b&gt;Die Zahlung&lt;/b&gt; &amp;nbsp; &lt;a href=&quot;#charge&quot;&gt;Alles zu dieser Zahlung zeigen…&lt;/a&gt;</translation>
    </message>
    <message>
        <source>The charge view: its actions in Countersign, the provider&apos;s refunds, its budget (Ctrl+Shift+G)</source>
        <translation>Die Zahlungsansicht: ihre Aktionen in Countersign, die Erstattungen beim Anbieter, ihr Budget (Strg+Umschalt+G)</translation>
    </message>
    <message>
        <source>&lt;b&gt;Settlement&lt;/b&gt; — the refund at the provider after it was accepted</source>
        <translation>&lt;b&gt;Abwicklung&lt;/b&gt; — die Erstattung beim Anbieter, nachdem er sie angenommen hat</translation>
    </message>
    <message>
        <source>Propose follow-up…</source>
        <translation>Folgeaktion vorschlagen…</translation>
    </message>
    <message>
        <source>Close without re-sending…</source>
        <translation>Ohne erneutes Senden schließen…</translation>
    </message>
    <message>
        <source> (%1)</source>
        <translation> (%1)</translation>
    </message>
    <message>
        <source>&lt;b&gt;Refund canceled after it was accepted.&lt;/b&gt; The provider accepted refund &lt;code&gt;%1&lt;/code&gt;, then reported it canceled on %2%3. &lt;b&gt;The customer has NOT been refunded.&lt;/b&gt; Nothing is re-sent by itself: propose it again as a follow-up (a new refund with its own approval and key), or close it with a note.</source>
        <translation>&lt;b&gt;Erstattung nach der Annahme storniert.&lt;/b&gt; Der Anbieter hat die Erstattung &lt;code&gt;%1&lt;/code&gt; angenommen und sie dann am %2%3 als storniert gemeldet. &lt;b&gt;Der Kunde hat KEIN Geld zurückerhalten.&lt;/b&gt; Nichts wird von selbst erneut gesendet: Schlagen Sie sie als Folgeaktion erneut vor (eine neue Erstattung mit eigener Freigabe und eigenem Schlüssel) oder schließen Sie sie mit einer Notiz.</translation>
    </message>
    <message>
        <source>&lt;b&gt;Refund failed after it was accepted.&lt;/b&gt; The provider accepted refund &lt;code&gt;%1&lt;/code&gt;, then reported it failed on %2%3. &lt;b&gt;The customer has NOT been refunded.&lt;/b&gt; Nothing is re-sent by itself: propose it again as a follow-up (a new refund with its own approval and key), or close it with a note.</source>
        <translation>&lt;b&gt;Erstattung nach der Annahme fehlgeschlagen.&lt;/b&gt; Der Anbieter hat die Erstattung &lt;code&gt;%1&lt;/code&gt; angenommen und sie dann am %2%3 als fehlgeschlagen gemeldet. &lt;b&gt;Der Kunde hat KEIN Geld zurückerhalten.&lt;/b&gt; Nichts wird von selbst erneut gesendet: Schlagen Sie sie als Folgeaktion erneut vor (eine neue Erstattung mit eigener Freigabe und eigenem Schlüssel) oder schließen Sie sie mit einer Notiz.</translation>
    </message>
    <message>
        <source>&lt;b&gt;Timeline&lt;/b&gt; — attempts, lookups, state changes, the end of the key window and the refund&apos;s settlement</source>
        <translation>&lt;b&gt;Zeitleiste&lt;/b&gt; — Versuche, Abfragen, Zustandswechsel, das Ende des Schlüsselfensters und die Abwicklung der Erstattung</translation>
    </message>
    <message>
        <source>&lt;b&gt;Identifiers&lt;/b&gt; — what the backend and the provider know this refund by</source>
        <translation>&lt;b&gt;Kennungen&lt;/b&gt; — woran Backend und Anbieter diese Erstattung erkennen</translation>
    </message>
    <message>
        <source>Amount in minor units</source>
        <translation>Betrag in kleinsten Einheiten</translation>
    </message>
    <message>
        <source>State version (ETag)</source>
        <translation>Zustandsversion (ETag)</translation>
    </message>
</context>
<context>
    <name>cs::ActionExportJob</name>
    <message>
        <source>cannot write %1: %2</source>
        <translation>%1 kann nicht geschrieben werden: %2</translation>
    </message>
    <message>
        <source>the action list is gone</source>
        <translation>die Aktionsliste ist nicht mehr verfügbar</translation>
    </message>
    <message>
        <source>page %1 of the action list could not be read: %2</source>
        <translation>Seite %1 der Aktionsliste konnte nicht gelesen werden: %2</translation>
    </message>
</context>
<context>
    <name>cs::ActionQueueModel</name>
    <message>
        <source>The queue could not be loaded.</source>
        <translation>Die Warteschlange konnte nicht geladen werden.</translation>
    </message>
    <message>
        <source>Dual control: %1 approvals, none given yet</source>
        <translation>Vier-Augen-Prinzip: %1 Freigaben, noch keine erteilt</translation>
    </message>
    <message>
        <source>Dual control: %1 approvals, by %2</source>
        <translation>Vier-Augen-Prinzip: %1 Freigaben, von %2</translation>
    </message>
    <message numerus="yes">
        <source>Possible duplicate: %n other refund(s) of this charge or order; approving needs a note</source>
        <translation>
            <numerusform>Mögliches Duplikat: %n weitere Erstattung dieser Zahlung oder Bestellung; eine Freigabe braucht eine Notiz</numerusform>
            <numerusform>Mögliches Duplikat: %n weitere Erstattungen dieser Zahlung oder Bestellung; eine Freigabe braucht eine Notiz</numerusform>
        </translation>
    </message>
    <message>
        <source>Proposed %1</source>
        <translation>Vorgeschlagen %1</translation>
    </message>
    <message>
        <source>%1 minor units of %2</source>
        <translation>%1 kleinste Einheiten in %2</translation>
    </message>
    <message>
        <source>%1, %2, %3</source>
        <translation>%1, %2, %3</translation>
    </message>
    <message>
        <source>, %1 approvals</source>
        <translation>, %1 Freigaben</translation>
    </message>
    <message>
        <source>, possible duplicate</source>
        <translation>, mögliches Duplikat</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 von %2</translation>
    </message>
    <message>
        <source>Click to sort the whole list by this column (the backend sorts)</source>
        <translation>Klicken, um die ganze Liste nach dieser Spalte zu sortieren (das Backend sortiert)</translation>
    </message>
    <message>
        <source>The list cannot be sorted by this column</source>
        <translation>Nach dieser Spalte kann die Liste nicht sortiert werden</translation>
    </message>
    <message>
        <source>State</source>
        <translation>Zustand</translation>
    </message>
    <message>
        <source>Amount</source>
        <translation>Betrag</translation>
    </message>
    <message>
        <source>Charge</source>
        <translation>Zahlung</translation>
    </message>
    <message>
        <source>Order</source>
        <translation>Bestellung</translation>
    </message>
    <message>
        <source>Agent</source>
        <translation>Agent</translation>
    </message>
    <message>
        <source>Age</source>
        <translation>Alter</translation>
    </message>
    <message>
        <source>Attempts</source>
        <translation>Versuche</translation>
    </message>
    <message>
        <source>Last event</source>
        <translation>Letztes Ereignis</translation>
    </message>
    <message>
        <source>Action</source>
        <translation>Aktion</translation>
    </message>
    <message>
        <source>, refund failed after completion</source>
        <translation>, Erstattung nach dem Abschluss fehlgeschlagen</translation>
    </message>
    <message>
        <source>Refund %1 after it was accepted: the customer has not been refunded; a supervisor decides</source>
        <translation>Erstattung nach der Annahme mit Status %1: Der Kunde hat kein Geld zurückerhalten; ein Supervisor entscheidet</translation>
    </message>
    <message>
        <source>Refund %1 after it was accepted (decided)</source>
        <translation>Erstattung nach der Annahme mit Status %1 (entschieden)</translation>
    </message>
    <message>
        <source>Refund still settling at the provider (%1)</source>
        <translation>Erstattung wird beim Anbieter noch abgewickelt (%1)</translation>
    </message>
    <message>
        <source>Approved: waiting for the executor to send it</source>
        <translation>Freigegeben: wartet darauf, dass die Ausführung sie sendet</translation>
    </message>
</context>
<context>
    <name>cs::AgentReasonsView</name>
    <message>
        <source>The agent gave no reasons.</source>
        <translation>Der Agent hat keine Begründung angegeben.</translation>
    </message>
    <message>
        <source>The agent&apos;s justification</source>
        <translation>Die Rechtfertigung des Agenten</translation>
    </message>
    <message>
        <source>Context (ticket or conversation)</source>
        <translation>Kontext (Ticket oder Gespräch)</translation>
    </message>
    <message>
        <source>The agent&apos;s facts</source>
        <translation>Die Fakten des Agenten</translation>
    </message>
    <message>
        <source>Context: %1</source>
        <translation>Kontext: %1</translation>
    </message>
    <message>
        <source>Opens %1 in the browser</source>
        <translation>Öffnet %1 im Browser</translation>
    </message>
    <message>
        <source>Context (not a link: only https:// addresses open): %1</source>
        <translation>Kontext (kein Link: nur https://-Adressen werden geöffnet): %1</translation>
    </message>
</context>
<context>
    <name>cs::ApiError</name>
    <message>
        <source>The backend was refused: %1.</source>
        <translation>Das Backend wurde abgewiesen: %1.</translation>
    </message>
    <message>
        <source>The backend did not answer (%1).</source>
        <translation>Das Backend hat nicht geantwortet (%1).</translation>
    </message>
    <message>
        <source>The backend did not answer within %1.</source>
        <translation>Das Backend hat nicht innerhalb von %1 geantwortet.</translation>
    </message>
    <message>
        <source>The backend&apos;s answer could not be read: %1</source>
        <translation>Die Antwort des Backends konnte nicht gelesen werden: %1</translation>
    </message>
    <message>
        <source>Cancelled.</source>
        <translation>Abgebrochen.</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>Fehler</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 ms</translation>
    </message>
    <message>
        <source>The ledger cannot write (%1). Nothing was written; try again once an operator has made room or fixed its storage.</source>
        <translation>Das Hauptbuch kann nicht schreiben (%1). Nichts wurde geschrieben; versuchen Sie es erneut, sobald ein Betreiber Platz geschaffen oder den Speicher repariert hat.</translation>
    </message>
    <message>
        <source>The ledger is damaged (%1). Nothing was written; an operator must check and restore it.</source>
        <translation>Das Hauptbuch ist beschädigt (%1). Nichts wurde geschrieben; ein Betreiber muss es prüfen und wiederherstellen.</translation>
    </message>
</context>
<context>
    <name>cs::ApiPageSource</name>
    <message>
        <source>The backend&apos;s page could not be read: %1</source>
        <translation>Die Seite des Backends konnte nicht gelesen werden: %1</translation>
    </message>
</context>
<context>
    <name>cs::ApprovalTableModel</name>
    <message>
        <source>Version</source>
        <translation>Version</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>Zeit</translation>
    </message>
    <message>
        <source>Decided by</source>
        <translation>Entschieden von</translation>
    </message>
    <message>
        <source>Decision</source>
        <translation>Entscheidung</translation>
    </message>
    <message>
        <source>Note</source>
        <translation>Notiz</translation>
    </message>
    <message>
        <source>Key minted</source>
        <translation>Schlüssel erzeugt</translation>
    </message>
    <message>
        <source>Signed fingerprint</source>
        <translation>Unterschriebener Fingerabdruck</translation>
    </message>
    <message>
        <source>approved, expired unsent</source>
        <translation>freigegeben, ungesendet abgelaufen</translation>
    </message>
    <message>
        <source>approved</source>
        <translation>freigegeben</translation>
    </message>
    <message>
        <source>rejected</source>
        <translation>abgelehnt</translation>
    </message>
    <message>
        <source>rejected: %1</source>
        <translation>abgelehnt: %1</translation>
    </message>
</context>
<context>
    <name>cs::ApproveDialog</name>
    <message>
        <source>&lt;b&gt;The charge&lt;/b&gt;</source>
        <translation>&lt;b&gt;Die Zahlung&lt;/b&gt;</translation>
    </message>
    <message>
        <source>&lt;b&gt;The agent&apos;s reasons&lt;/b&gt;</source>
        <translation>&lt;b&gt;Die Begründung des Agenten&lt;/b&gt;</translation>
    </message>
    <message>
        <source>&amp;Note (optional, kept with the approval):</source>
        <translation>&amp;Notiz (optional, wird mit der Freigabe gespeichert):</translation>
    </message>
    <message>
        <source>&amp;Note (required: why both refunds are intended; kept with the approval):</source>
        <translation>&amp;Notiz (Pflicht: warum beide Erstattungen gewollt sind; wird mit der Freigabe gespeichert):</translation>
    </message>
    <message>
        <source>Approval note</source>
        <translation>Freigabenotiz</translation>
    </message>
    <message>
        <source>Approve</source>
        <translation>Freigeben</translation>
    </message>
    <message numerus="yes">
        <source>This refund may duplicate %n other(s): write a note saying why both are intended.</source>
        <translation>
            <numerusform>Diese Erstattung könnte %n andere doppeln: Schreiben Sie in einer Notiz, warum beide gewollt sind.</numerusform>
            <numerusform>Diese Erstattung könnte %n andere doppeln: Schreiben Sie in einer Notiz, warum alle gewollt sind.</numerusform>
        </translation>
    </message>
    <message>
        <source>&lt;p style=&quot;font-size:large&quot;&gt;&lt;b&gt;Approve a refund of %1&lt;/b&gt;&lt;/p&gt;</source>
        <translation>&lt;p style=&quot;font-size:large&quot;&gt;&lt;b&gt;Eine Erstattung von %1 freigeben&lt;/b&gt;&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Order</source>
        <translation>Bestellung</translation>
    </message>
    <message>
        <source>Provider</source>
        <translation>Anbieter</translation>
    </message>
    <message>
        <source>the configured provider</source>
        <translation>der eingerichtete Anbieter</translation>
    </message>
    <message>
        <source>Requested by</source>
        <translation>Angefordert von</translation>
    </message>
    <message>
        <source>%1 — today: %2; 7 days: %3</source>
        <translation>%1 — heute: %2; 7 Tage: %3</translation>
    </message>
    <message>
        <source>Approvals</source>
        <translation>Freigaben</translation>
    </message>
    <message>
        <source>Possible duplicate: order %1 already has a refund of %2 (%3; requested by %4, %5).</source>
        <translation>Mögliche Doppelung: Bestellung %1 hat schon eine Erstattung über %2 (%3; angefordert von %4, %5).</translation>
    </message>
    <message>
        <source>Possible duplicate: order %1 also has a refund of %2 (%3; requested by %4, %5).</source>
        <translation>Mögliche Doppelung: Bestellung %1 hat auch eine Erstattung über %2 (%3; angefordert von %4, %5).</translation>
    </message>
    <message>
        <source>Possible duplicate: the same charge already has a refund of %1 (%2; requested by %3, %4).</source>
        <translation>Mögliche Doppelung: Dieselbe Zahlung hat schon eine Erstattung über %1 (%2; angefordert von %3, %4).</translation>
    </message>
    <message>
        <source>Possible duplicate: the same charge also has a refund of %1 (%2; requested by %3, %4).</source>
        <translation>Mögliche Doppelung: Dieselbe Zahlung hat auch eine Erstattung über %1 (%2; angefordert von %3, %4).</translation>
    </message>
    <message>
        <source>Approve only if both are intended, and say why in the note.</source>
        <translation>Nur freigeben, wenn beide gewollt sind, und in der Notiz begründen.</translation>
    </message>
    <message>
        <source>&lt;p style=&quot;font-size:large&quot;&gt;&lt;b&gt;Approve a refund of %1 for %2&lt;/b&gt;&lt;/p&gt;</source>
        <translation>&lt;p style=&quot;font-size:large&quot;&gt;&lt;b&gt;Erstattung über %1 für %2 freigeben&lt;/b&gt;&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Refund</source>
        <translation>Erstattung</translation>
    </message>
    <message>
        <source>&lt;p&gt;The policy asks for &lt;b&gt;%1 different approvers&lt;/b&gt;. Yours is &lt;b&gt;signature %2 of %1&lt;/b&gt;: it is counted and the refund waits. &lt;b&gt;Nothing is sent to the provider&lt;/b&gt; until %1 approvers have signed.&lt;/p&gt;</source>
        <translation>&lt;p&gt;Die Richtlinie verlangt &lt;b&gt;%1 verschiedene Freigebende&lt;/b&gt;. Ihre ist &lt;b&gt;Unterschrift %2 von %1&lt;/b&gt;: Sie wird gezählt, und die Erstattung wartet. &lt;b&gt;An den Anbieter wird nichts gesendet&lt;/b&gt;, bis %1 Freigebende unterschrieben haben.&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;Approving signs this exact refund. &lt;b&gt;Nothing is sent to the provider now&lt;/b&gt;: the refund waits, approved, until the executor sends it — once, however often it has to ask again.&lt;/p&gt;</source>
        <translation>&lt;p&gt;Die Freigabe unterschreibt genau diese Erstattung. &lt;b&gt;Jetzt wird nichts an den Anbieter gesendet&lt;/b&gt;: Die Erstattung wartet freigegeben, bis die Ausführung sie sendet — einmal, wie oft sie auch nachfragen muss.&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Approve refund</source>
        <translation>Erstattung freigeben</translation>
    </message>
</context>
<context>
    <name>cs::AttemptTableModel</name>
    <message>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>Zeit</translation>
    </message>
    <message>
        <source>Idempotency key</source>
        <translation>Idempotenzschlüssel</translation>
    </message>
    <message>
        <source>Fingerprint</source>
        <translation>Fingerabdruck</translation>
    </message>
    <message>
        <source>Outcome</source>
        <translation>Ergebnis</translation>
    </message>
    <message>
        <source>HTTP</source>
        <translation>HTTP</translation>
    </message>
    <message>
        <source>Latency</source>
        <translation>Latenz</translation>
    </message>
    <message>
        <source>Replayed</source>
        <translation>Wiederholt</translation>
    </message>
    <message>
        <source>Provider object</source>
        <translation>Anbieterobjekt</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>Fehler</translation>
    </message>
    <message>
        <source>open</source>
        <translation>offen</translation>
    </message>
    <message>
        <source>succeeded</source>
        <translation>erfolgreich</translation>
    </message>
    <message>
        <source>rejected</source>
        <translation>abgelehnt</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>unbekannt</translation>
    </message>
    <message>
        <source>rate limited</source>
        <translation>Ratenlimit erreicht</translation>
    </message>
    <message>
        <source>key in use</source>
        <translation>Schlüssel in Verwendung</translation>
    </message>
    <message>
        <source>idempotency mismatch</source>
        <translation>Idempotenzkonflikt</translation>
    </message>
    <message>
        <source>started %1, finished %2</source>
        <translation>begonnen %1, beendet %2</translation>
    </message>
    <message>
        <source>not yet</source>
        <translation>noch nicht</translation>
    </message>
    <message>
        <source>request %1</source>
        <translation>Anfrage %1</translation>
    </message>
    <message>
        <source>none</source>
        <translation>keine</translation>
    </message>
</context>
<context>
    <name>cs::AttentionController</name>
    <message numerus="yes">
        <source>%n second(s)</source>
        <translation>
            <numerusform>%n Sekunde</numerusform>
            <numerusform>%n Sekunden</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n minute(s)</source>
        <translation>
            <numerusform>%n Minute</numerusform>
            <numerusform>%n Minuten</numerusform>
        </translation>
    </message>
    <message>
        <source>Desktop &amp;notifications</source>
        <translation>Desktop-&amp;Benachrichtigungen</translation>
    </message>
    <message>
        <source>Tell me on the desktop when an action starts waiting for me (the title and the tray count it either way)</source>
        <translation>Auf dem Desktop melden, wenn eine Aktion auf mich wartet (Fenstertitel und Infobereich zählen sie ohnehin)</translation>
    </message>
    <message>
        <source>Notify at &amp;most every</source>
        <translation>Benachrichtigen &amp;höchstens alle</translation>
    </message>
    <message>
        <source>Show what waits for you (%1)</source>
        <translation>Zeigen, was auf Sie wartet (%1)</translation>
    </message>
    <message>
        <source>Waiting for you: %1</source>
        <translation>Wartet auf Sie: %1</translation>
    </message>
    <message>
        <source>Countersign: nothing waits for you</source>
        <translation>Countersign: Nichts wartet auf Sie</translation>
    </message>
    <message>
        <source>Countersign: %1</source>
        <translation>Countersign: %1</translation>
    </message>
</context>
<context>
    <name>cs::AttentionNotifier</name>
    <message>
        <source>%1 · %2</source>
        <translation>%1 · %2</translation>
    </message>
    <message numerus="yes">
        <source>%n to review</source>
        <translation>
            <numerusform>%n zu prüfen</numerusform>
            <numerusform>%n zu prüfen</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n unconfirmed</source>
        <translation>
            <numerusform>%n unbestätigt</numerusform>
            <numerusform>%n unbestätigt</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n to approve</source>
        <translation>
            <numerusform>%n freizugeben</numerusform>
            <numerusform>%n freizugeben</numerusform>
        </translation>
    </message>
    <message>
        <source>Countersign</source>
        <translation>Countersign</translation>
    </message>
    <message>
        <source>Countersign — %1</source>
        <translation>Countersign — %1</translation>
    </message>
    <message>
        <source>Countersign — %1 — %2</source>
        <translation>Countersign — %1 — %2</translation>
    </message>
    <message>
        <source>Review needed</source>
        <translation>Prüfung nötig</translation>
    </message>
    <message>
        <source>Outcome unknown</source>
        <translation>Ergebnis unbekannt</translation>
    </message>
    <message>
        <source>Approval awaited</source>
        <translation>Freigabe erwartet</translation>
    </message>
    <message>
        <source>%1 awaits approval</source>
        <translation>%1 wartet auf Freigabe</translation>
    </message>
    <message>
        <source>Countersign: new work</source>
        <translation>Countersign: neue Arbeit</translation>
    </message>
    <message numerus="yes">
        <source>%n new to review</source>
        <translation>
            <numerusform>%n neu zu prüfen</numerusform>
            <numerusform>%n neu zu prüfen</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n new unconfirmed</source>
        <translation>
            <numerusform>%n neu unbestätigt</numerusform>
            <numerusform>%n neu unbestätigt</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n new to approve</source>
        <translation>
            <numerusform>%n neu freizugeben</numerusform>
            <numerusform>%n neu freizugeben</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n refund(s) failed</source>
        <translation>
            <numerusform>%n Erstattung fehlgeschlagen</numerusform>
            <numerusform>%n Erstattungen fehlgeschlagen</numerusform>
        </translation>
    </message>
    <message>
        <source>Refund failed</source>
        <translation>Erstattung fehlgeschlagen</translation>
    </message>
    <message>
        <source>The refund of %1 failed after it was accepted: the customer has not been refunded</source>
        <translation>Die Erstattung von %1 ist nach der Annahme fehlgeschlagen: Der Kunde hat kein Geld zurückerhalten</translation>
    </message>
    <message>
        <source>The refund of %1 failed after it was accepted (%2): the customer has not been refunded</source>
        <translation>Die Erstattung von %1 ist nach der Annahme fehlgeschlagen (%2): Der Kunde hat kein Geld zurückerhalten</translation>
    </message>
    <message>
        <source>Refund %1 of %2 failed after it was accepted (%3): the customer has not been refunded</source>
        <translation>Erstattung %1 von %2 ist nach der Annahme fehlgeschlagen (%3): Der Kunde hat kein Geld zurückerhalten</translation>
    </message>
    <message>
        <source>Refund %1 for order %2 failed after it was accepted (%3): the customer has not been refunded</source>
        <translation>Erstattung %1 für Bestellung %2 ist nach der Annahme fehlgeschlagen (%3): Der Kunde hat kein Geld zurückerhalten</translation>
    </message>
    <message numerus="yes">
        <source>%n new failed refund(s)</source>
        <translation>
            <numerusform>%n neue fehlgeschlagene Erstattung</numerusform>
            <numerusform>%n neue fehlgeschlagene Erstattungen</numerusform>
        </translation>
    </message>
    <message>
        <source>The refund of %1 for %2</source>
        <translation>Die Erstattung über %1 für %2</translation>
    </message>
    <message>
        <source>the refund of %1 for %2</source>
        <translation>die Erstattung über %1 für %2</translation>
    </message>
    <message>
        <source>A refund of %1</source>
        <translation>Eine Erstattung über %1</translation>
    </message>
    <message>
        <source>a refund of %1</source>
        <translation>eine Erstattung über %1</translation>
    </message>
    <message>
        <source>%1 needs a person to decide what happened; nothing is sent again until then.</source>
        <translation>%1 braucht einen Menschen, der entscheidet, was geschehen ist; bis dahin wird nichts erneut gesendet.</translation>
    </message>
    <message>
        <source>%1 needs review</source>
        <translation>%1 muss geprüft werden</translation>
    </message>
    <message>
        <source>Whether %1 went through is not known yet; Countersign is finding out.</source>
        <translation>Ob %1 durchgegangen ist, ist noch nicht bekannt; Countersign findet es heraus.</translation>
    </message>
    <message>
        <source>Whether %1 went through is not known yet</source>
        <translation>Ob %1 durchgegangen ist, ist noch nicht bekannt</translation>
    </message>
    <message>
        <source>%1 awaits approval, requested by %2</source>
        <translation>%1 wartet auf Freigabe, angefordert von %2</translation>
    </message>
</context>
<context>
    <name>cs::AuditTableModel</name>
    <message>
        <source>Seq</source>
        <translation>Nr.</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>Zeit</translation>
    </message>
    <message>
        <source>Actor</source>
        <translation>Akteur</translation>
    </message>
    <message>
        <source>Event</source>
        <translation>Ereignis</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>Grund</translation>
    </message>
    <message>
        <source>Change</source>
        <translation>Änderung</translation>
    </message>
    <message>
        <source>hash %1
previous %2</source>
        <translation>Hash %1
vorheriger %2</translation>
    </message>
</context>
<context>
    <name>cs::BulkDecisionController</name>
    <message>
        <source>the backend&apos;s answer could not be read</source>
        <translation>die Antwort des Backends konnte nicht gelesen werden</translation>
    </message>
    <message>
        <source>could not be read: %1</source>
        <translation>konnte nicht gelesen werden: %1</translation>
    </message>
    <message>
        <source>it is %1 now; only a PENDING action can be decided</source>
        <translation>sie ist jetzt %1; nur über eine PENDING-Aktion kann entschieden werden</translation>
    </message>
    <message>
        <source>not allowed</source>
        <translation>nicht erlaubt</translation>
    </message>
    <message>
        <source>%1; whether it was decided is unknown</source>
        <translation>%1; ob entschieden wurde, ist unbekannt</translation>
    </message>
    <message>
        <source>rejected: %1</source>
        <translation>abgelehnt: %1</translation>
    </message>
    <message>
        <source> (the backend replayed its first answer)</source>
        <translation> (das Backend hat seine erste Antwort wiederholt)</translation>
    </message>
    <message>
        <source>%1 of %2 decided; %3 not done.</source>
        <translation>%1 von %2 entschieden; %3 nicht erledigt.</translation>
    </message>
    <message>
        <source>no answer (%1); sending the same request again, attempt %2</source>
        <translation>keine Antwort (%1); dieselbe Anfrage wird erneut gesendet, Versuch %2</translation>
    </message>
    <message>
        <source>signed (%1 of %2): nothing is sent until %2 different approvers have signed</source>
        <translation>unterschrieben (%1 von %2): gesendet wird nichts, bis %2 verschiedene Freigebende unterschrieben haben</translation>
    </message>
    <message>
        <source>approved: the executor sends it once</source>
        <translation>freigegeben: die Ausführung sendet sie einmal</translation>
    </message>
</context>
<context>
    <name>cs::BulkDecisionDialog</name>
    <message>
        <source>Approve selected refunds</source>
        <translation>Ausgewählte Erstattungen freigeben</translation>
    </message>
    <message>
        <source>Reject selected refunds</source>
        <translation>Ausgewählte Erstattungen ablehnen</translation>
    </message>
    <message>
        <source>The selected actions</source>
        <translation>Die ausgewählten Aktionen</translation>
    </message>
    <message>
        <source>&amp;Reason for all of them (required, each agent sees it):</source>
        <translation>&amp;Grund für alle (Pflicht, jeder Agent sieht ihn):</translation>
    </message>
    <message>
        <source>Rejection reason</source>
        <translation>Ablehnungsgrund</translation>
    </message>
    <message>
        <source>&amp;Note for all of them (optional, kept with each approval):</source>
        <translation>&amp;Notiz für alle (optional, wird mit jeder Freigabe gespeichert):</translation>
    </message>
    <message>
        <source>&amp;Note for all of them (required for Other, kept with each rejection):</source>
        <translation>&amp;Notiz für alle (Pflicht bei „Sonstiges“, wird mit jeder Ablehnung gespeichert):</translation>
    </message>
    <message>
        <source>Approval note</source>
        <translation>Freigabenotiz</translation>
    </message>
    <message>
        <source>Rejection note</source>
        <translation>Ablehnungsnotiz</translation>
    </message>
    <message>
        <source>Retry failed</source>
        <translation>Fehlgeschlagene wiederholen</translation>
    </message>
    <message>
        <source>Approve</source>
        <translation>Freigeben</translation>
    </message>
    <message>
        <source>Reject</source>
        <translation>Ablehnen</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>Reading each action&apos;s current state…</source>
        <translation>Der aktuelle Zustand jeder Aktion wird gelesen…</translation>
    </message>
    <message>
        <source>None of the selected actions can be decided by you now (see Skipped).</source>
        <translation>Über keine der ausgewählten Aktionen können Sie jetzt entscheiden (siehe „Übersprungen“).</translation>
    </message>
    <message>
        <source>Choose the reason for the rejections.</source>
        <translation>Wählen Sie den Grund für die Ablehnungen.</translation>
    </message>
    <message>
        <source>Write a note saying why: the reason is Other.</source>
        <translation>Schreiben Sie eine Begründung in die Notiz: Der Grund ist „Sonstiges“.</translation>
    </message>
    <message>
        <source>1 refund</source>
        <translation>1 Erstattung</translation>
    </message>
    <message>
        <source>%1 refunds</source>
        <translation>%1 Erstattungen</translation>
    </message>
    <message>
        <source>&lt;p style=&quot;font-size:large&quot;&gt;&lt;b&gt;Approve %1&lt;/b&gt;&lt;/p&gt;</source>
        <translation>&lt;p style=&quot;font-size:large&quot;&gt;&lt;b&gt;%1 freigeben&lt;/b&gt;&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p style=&quot;font-size:large&quot;&gt;&lt;b&gt;Reject %1&lt;/b&gt;&lt;/p&gt;</source>
        <translation>&lt;p style=&quot;font-size:large&quot;&gt;&lt;b&gt;%1 ablehnen&lt;/b&gt;&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;Each action gets its &lt;b&gt;own rejection&lt;/b&gt;, sent one request per action with the version you see, with the reason and note below. Each becomes &lt;b&gt;REJECTED&lt;/b&gt;: nothing is ever sent to the provider for it.&lt;/p&gt;</source>
        <translation>&lt;p&gt;Jede Aktion erhält ihre &lt;b&gt;eigene Ablehnung&lt;/b&gt;, gesendet als eine Anfrage je Aktion mit der Version, die Sie sehen, mit Grund und Notiz von unten. Jede wird &lt;b&gt;REJECTED&lt;/b&gt;: Für sie wird niemals etwas an den Anbieter gesendet.&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;b&gt;Total:&lt;/b&gt; %1 in %2</source>
        <translation>&lt;b&gt;Summe:&lt;/b&gt; %1 in %2</translation>
    </message>
    <message>
        <source> &amp;nbsp;·&amp;nbsp; &lt;b&gt;%1 skipped&lt;/b&gt; (not offered: see why in the list)</source>
        <translation> &amp;nbsp;·&amp;nbsp; &lt;b&gt;%1 übersprungen&lt;/b&gt; (nicht angeboten: Grund siehe Liste)</translation>
    </message>
    <message numerus="yes">
        <source>%n done</source>
        <translation>
            <numerusform>%n erledigt</numerusform>
            <numerusform>%n erledigt</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>&lt;span style=&quot;color:%1&quot;&gt;&lt;b&gt;%n not done&lt;/b&gt;&lt;/span&gt;</source>
        <translation>
            <numerusform>&lt;span style=&quot;color:%1&quot;&gt;&lt;b&gt;%n nicht erledigt&lt;/b&gt;&lt;/span&gt;</numerusform>
            <numerusform>&lt;span style=&quot;color:%1&quot;&gt;&lt;b&gt;%n nicht erledigt&lt;/b&gt;&lt;/span&gt;</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n sending…</source>
        <translation>
            <numerusform>%n wird gesendet…</numerusform>
            <numerusform>%n werden gesendet…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Approve %n</source>
        <translation>
            <numerusform>%n freigeben</numerusform>
            <numerusform>%n freigeben</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Reject %n</source>
        <translation>
            <numerusform>%n ablehnen</numerusform>
            <numerusform>%n ablehnen</numerusform>
        </translation>
    </message>
    <message>
        <source>Retry failed (%1)</source>
        <translation>Fehlgeschlagene wiederholen (%1)</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>Schließen</translation>
    </message>
    <message>
        <source>Each refund you can approve has warnings: tick the ones you approve despite them (Space in the Warnings column).</source>
        <translation>Jede Erstattung, die Sie freigeben können, hat Warnungen: Haken Sie die an, die Sie trotzdem freigeben (Leertaste in der Spalte Warnungen).</translation>
    </message>
    <message>
        <source>&lt;p&gt;Each refund gets its &lt;b&gt;own approval&lt;/b&gt; of the version you see, sent one request per refund. &lt;b&gt;Nothing is sent to the provider now&lt;/b&gt;: each waits, approved, until the executor sends it — once.&lt;/p&gt;</source>
        <translation>&lt;p&gt;Jede Erstattung erhält ihre &lt;b&gt;eigene Freigabe&lt;/b&gt; der Version, die Sie sehen, mit einer Anfrage je Erstattung. &lt;b&gt;Jetzt wird nichts an den Anbieter gesendet&lt;/b&gt;: Jede wartet freigegeben, bis die Ausführung sie sendet — einmal.&lt;/p&gt;</translation>
    </message>
    <message numerus="yes">
        <source> &amp;nbsp;·&amp;nbsp; &lt;b&gt;%n with warnings not ticked&lt;/b&gt;: held back, not approved with the others</source>
        <translation>
            <numerusform> &amp;nbsp;·&amp;nbsp; &lt;b&gt;%n mit Warnungen nicht angehakt&lt;/b&gt;: zurückgehalten, nicht mit den anderen freigegeben</numerusform>
            <numerusform> &amp;nbsp;·&amp;nbsp; &lt;b&gt;%n mit Warnungen nicht angehakt&lt;/b&gt;: zurückgehalten, nicht mit den anderen freigegeben</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>&lt;b&gt;%n without an answer&lt;/b&gt; (whether it was decided is unknown: Retry failed sends the same request, so it cannot be decided twice)</source>
        <translation>
            <numerusform>&lt;b&gt;%n ohne Antwort&lt;/b&gt; (ob sie entschieden wurde, ist unbekannt: „Fehlgeschlagene wiederholen“ sendet dieselbe Anfrage, sie kann also nicht zweimal entschieden werden)</numerusform>
            <numerusform>&lt;b&gt;%n ohne Antwort&lt;/b&gt; (ob sie entschieden wurden, ist unbekannt: „Fehlgeschlagene wiederholen“ sendet dieselbe Anfrage, sie können also nicht zweimal entschieden werden)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>cs::BulkDecisionModel</name>
    <message>
        <source>nothing</source>
        <translation>nichts</translation>
    </message>
    <message>
        <source>Checking…</source>
        <translation>Wird geprüft…</translation>
    </message>
    <message>
        <source>Ready</source>
        <translation>Bereit</translation>
    </message>
    <message>
        <source>Skipped</source>
        <translation>Übersprungen</translation>
    </message>
    <message>
        <source>Sending…</source>
        <translation>Wird gesendet…</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>Erledigt</translation>
    </message>
    <message>
        <source>Not done</source>
        <translation>Nicht erledigt</translation>
    </message>
    <message>
        <source>No answer</source>
        <translation>Keine Antwort</translation>
    </message>
    <message>
        <source>Action</source>
        <translation>Aktion</translation>
    </message>
    <message>
        <source>Requested by</source>
        <translation>Angefordert von</translation>
    </message>
    <message>
        <source>Target · order</source>
        <translation>Ziel · Bestellung</translation>
    </message>
    <message>
        <source>Amount</source>
        <translation>Betrag</translation>
    </message>
    <message>
        <source>Result</source>
        <translation>Ergebnis</translation>
    </message>
    <message>
        <source>Tick it (Space) to approve it with the others despite these warnings.</source>
        <translation>Anhaken (Leertaste), um sie trotz dieser Warnungen mit den anderen freizugeben.</translation>
    </message>
    <message>
        <source>none</source>
        <translation>keine</translation>
    </message>
    <message>
        <source>no reasons given</source>
        <translation>keine Begründung</translation>
    </message>
    <message>
        <source>Held — not ticked: it is not approved with the others</source>
        <translation>Zurückgehalten — nicht angehakt: wird nicht mit den anderen freigegeben</translation>
    </message>
    <message>
        <source>Warnings</source>
        <translation>Warnungen</translation>
    </message>
    <message>
        <source>The agent&apos;s reasons</source>
        <translation>Begründung des Agenten</translation>
    </message>
</context>
<context>
    <name>cs::ChargeActionModel</name>
    <message>
        <source>Action</source>
        <translation>Aktion</translation>
    </message>
    <message>
        <source>State</source>
        <translation>Zustand</translation>
    </message>
    <message>
        <source>Amount</source>
        <translation>Betrag</translation>
    </message>
    <message>
        <source>Requested by</source>
        <translation>Angefordert von</translation>
    </message>
    <message>
        <source>Proposed</source>
        <translation>Vorgeschlagen</translation>
    </message>
    <message>
        <source>In the budget</source>
        <translation>Im Budget</translation>
    </message>
    <message>
        <source>reserved</source>
        <translation>reserviert</translation>
    </message>
    <message>
        <source>reserved, approved</source>
        <translation>reserviert, freigegeben</translation>
    </message>
    <message>
        <source>refunded at the provider</source>
        <translation>beim Anbieter erstattet</translation>
    </message>
    <message>
        <source>not counted</source>
        <translation>nicht gezählt</translation>
    </message>
    <message>
        <source>budget not known</source>
        <translation>Budget nicht bekannt</translation>
    </message>
    <message>
        <source>Double-click (or Enter) to select it in the queue</source>
        <translation>Doppelklick (oder Eingabetaste) wählt sie in der Warteschlange aus</translation>
    </message>
</context>
<context>
    <name>cs::ChargeController</name>
    <message>
        <source>the backend&apos;s answer could not be read (%1)</source>
        <translation>die Antwort des Backends konnte nicht gelesen werden (%1)</translation>
    </message>
    <message>
        <source>Charge %1 read from the provider and recorded.</source>
        <translation>Zahlung %1 beim Anbieter gelesen und gespeichert.</translation>
    </message>
</context>
<context>
    <name>cs::ChargeRefundModel</name>
    <message>
        <source>Refund</source>
        <translation>Erstattung</translation>
    </message>
    <message>
        <source>Amount</source>
        <translation>Betrag</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>Status</translation>
    </message>
    <message>
        <source>Created</source>
        <translation>Erstellt</translation>
    </message>
    <message>
        <source>Made by</source>
        <translation>Erstellt durch</translation>
    </message>
    <message>
        <source>made outside Countersign</source>
        <translation>außerhalb von Countersign erstellt</translation>
    </message>
    <message>
        <source>No Countersign action made this refund (no countersign_action_id in its metadata): someone refunded at the provider directly, e.g. in its dashboard.</source>
        <translation>Keine Countersign-Aktion hat diese Erstattung erstellt (keine countersign_action_id in ihren Metadaten): Jemand hat direkt beim Anbieter erstattet, z. B. in dessen Dashboard.</translation>
    </message>
    <message>
        <source>Made by Countersign&apos;s action %1</source>
        <translation>Erstellt durch die Countersign-Aktion %1</translation>
    </message>
    <message>
        <source>not through Countersign — from a webhook</source>
        <translation>nicht über Countersign — aus einem Webhook</translation>
    </message>
    <message numerus="yes">
        <source>No Countersign action made this refund: the provider&apos;s webhooks announced it (%n event(s), the newest %1 at %2) and no read of the charge has listed it yet. It was made in the provider&apos;s dashboard or by another system.</source>
        <translation>
            <numerusform>Keine Countersign-Aktion hat diese Erstattung ausgelöst: Die Webhooks des Anbieters haben sie gemeldet (%n Ereignis, das neueste %1 um %2), und noch kein Abruf der Zahlung hat sie aufgeführt. Sie wurde im Dashboard des Anbieters oder von einem anderen System ausgelöst.</numerusform>
            <numerusform>Keine Countersign-Aktion hat diese Erstattung ausgelöst: Die Webhooks des Anbieters haben sie gemeldet (%n Ereignisse, das neueste %1 um %2), und noch kein Abruf der Zahlung hat sie aufgeführt. Sie wurde im Dashboard des Anbieters oder von einem anderen System ausgelöst.</numerusform>
        </translation>
    </message>
    <message>
        <source>No Countersign action made this refund. The read listed it as %1; a webhook event since (%2 at %3) says %4.</source>
        <translation>Keine Countersign-Aktion hat diese Erstattung ausgelöst. Der Abruf führte sie als %1; ein Webhook-Ereignis seither (%2 um %3) meldet %4.</translation>
    </message>
</context>
<context>
    <name>cs::ChargeStoryView</name>
    <message>
        <source>when proposed</source>
        <translation>beim Vorschlag</translation>
    </message>
    <message>
        <source>by %1</source>
        <translation>von %1</translation>
    </message>
    <message>
        <source>Read from the provider %1 (%2, %3).</source>
        <translation>Beim Anbieter gelesen: %1 (%2, %3).</translation>
    </message>
    <message>
        <source>The provider has not been asked about this charge yet.</source>
        <translation>Der Anbieter wurde zu dieser Zahlung noch nicht befragt.</translation>
    </message>
    <message>
        <source>Reading the charge from the provider now… </source>
        <translation>Die Zahlung wird jetzt beim Anbieter gelesen… </translation>
    </message>
    <message>
        <source>Shown meanwhile: the read of %1.</source>
        <translation>Bis dahin angezeigt: der Stand von %1.</translation>
    </message>
    <message>
        <source>The charge could not be read now: %1. Shown: the read of %2.</source>
        <translation>Die Zahlung konnte jetzt nicht gelesen werden: %1. Angezeigt: der Stand von %2.</translation>
    </message>
    <message>
        <source>The charge could not be read now: %1.</source>
        <translation>Die Zahlung konnte jetzt nicht gelesen werden: %1.</translation>
    </message>
    <message>
        <source>&lt;b&gt;Captured %1&lt;/b&gt; of %2</source>
        <translation>&lt;b&gt;%1 erfasst&lt;/b&gt; von %2</translation>
    </message>
    <message>
        <source>purchased &lt;b&gt;%1&lt;/b&gt; (%2)</source>
        <translation>gekauft: &lt;b&gt;%1&lt;/b&gt; (%2)</translation>
    </message>
    <message>
        <source>%1 •••• %2</source>
        <translation>%1 •••• %2</translation>
    </message>
    <message>
        <source>card</source>
        <translation>Karte</translation>
    </message>
    <message>
        <source>&lt;b&gt;disputed&lt;/b&gt;</source>
        <translation>&lt;b&gt;angefochten&lt;/b&gt;</translation>
    </message>
    <message>
        <source>not disputed</source>
        <translation>nicht angefochten</translation>
    </message>
    <message>
        <source>No refunds of this charge at the provider yet.</source>
        <translation>Beim Anbieter gibt es noch keine Erstattungen dieser Zahlung.</translation>
    </message>
    <message>
        <source>made outside Countersign</source>
        <translation>außerhalb von Countersign erstellt</translation>
    </message>
    <message>
        <source>&lt;b&gt;Refunded already: %1&lt;/b&gt;</source>
        <translation>&lt;b&gt;Bereits erstattet: %1&lt;/b&gt;</translation>
    </message>
    <message>
        <source>Charge &lt;code&gt;%1&lt;/code&gt;%2</source>
        <translation>Zahlung &lt;code&gt;%1&lt;/code&gt;%2</translation>
    </message>
    <message>
        <source> of payment intent &lt;code&gt;%1&lt;/code&gt;</source>
        <translation> des Payment Intents &lt;code&gt;%1&lt;/code&gt;</translation>
    </message>
    <message>
        <source>The provider did not find &lt;code&gt;%1&lt;/code&gt; (HTTP %2).</source>
        <translation>Der Anbieter hat &lt;code&gt;%1&lt;/code&gt; nicht gefunden (HTTP %2).</translation>
    </message>
    <message>
        <source> (HTTP %1)</source>
        <translation> (HTTP %1)</translation>
    </message>
    <message>
        <source>&lt;b&gt;Budget not known&lt;/b&gt;: the provider has not said what this charge can still refund. Nothing is refused for it; the provider itself refuses a refund over what is left.</source>
        <translation>&lt;b&gt;Budget nicht bekannt&lt;/b&gt;: Der Anbieter hat nicht mitgeteilt, was für diese Zahlung noch erstattet werden kann. Deshalb wird nichts abgewiesen; der Anbieter selbst weist eine Erstattung über den Rest hinaus ab.</translation>
    </message>
    <message>
        <source>, approved</source>
        <translation>, freigegeben</translation>
    </message>
    <message>
        <source>&lt;b&gt;Budget&lt;/b&gt;: captured %1 − %2refunded at the provider %3 − %4reserved in Countersign %5 − %6&lt;b&gt;this action %7&lt;/b&gt; = %8&lt;b&gt;%9 left&lt;/b&gt;</source>
        <translation>&lt;b&gt;Budget&lt;/b&gt;: erfasst %1 − %2beim Anbieter erstattet %3 − %4in Countersign reserviert %5 − %6&lt;b&gt;diese Aktion %7&lt;/b&gt; = %8&lt;b&gt;%9 übrig&lt;/b&gt;</translation>
    </message>
    <message>
        <source>Reserved by: %1</source>
        <translation>Reserviert von: %1</translation>
    </message>
    <message>
        <source>This refund does not fit: only %1 can still be refunded.</source>
        <translation>Diese Erstattung passt nicht: Nur %1 kann noch erstattet werden.</translation>
    </message>
    <message>
        <source>Refund budget</source>
        <translation>Erstattungsbudget</translation>
    </message>
    <message>
        <source>pending</source>
        <translation>ausstehend</translation>
    </message>
    <message>
        <source>waiting for an action at the provider</source>
        <translation>wartet auf eine Handlung beim Anbieter</translation>
    </message>
    <message>
        <source>succeeded</source>
        <translation>erfolgreich</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>fehlgeschlagen</translation>
    </message>
    <message>
        <source>canceled</source>
        <translation>storniert</translation>
    </message>
    <message>
        <source>No view of the charge: the provider does not know %1, so its amount, age, refunds and disputes are unchecked.</source>
        <translation>Keine Sicht auf die Zahlung: Der Anbieter kennt %1 nicht, daher sind Betrag, Alter, Erstattungen und Anfechtungen ungeprüft.</translation>
    </message>
    <message>
        <source>No view of the charge: the provider could not be read (HTTP %1), so its amount, age, refunds and disputes are unchecked.</source>
        <translation>Keine Sicht auf die Zahlung: Der Anbieter konnte nicht gelesen werden (HTTP %1), daher sind Betrag, Alter, Erstattungen und Anfechtungen ungeprüft.</translation>
    </message>
    <message>
        <source>No view of the charge: the provider did not answer, so its amount, age, refunds and disputes are unchecked.</source>
        <translation>Keine Sicht auf die Zahlung: Der Anbieter hat nicht geantwortet, daher sind Betrag, Alter, Erstattungen und Anfechtungen ungeprüft.</translation>
    </message>
    <message>
        <source>The customer disputed this charge: a refund now may pay them twice.</source>
        <translation>Der Kunde hat diese Zahlung angefochten: Eine Erstattung jetzt kann ihn doppelt bezahlen.</translation>
    </message>
    <message>
        <source>%1 is the whole captured amount of the charge.</source>
        <translation>%1 ist der ganze erfasste Betrag der Zahlung.</translation>
    </message>
    <message>
        <source>%1 is more than the charge&apos;s captured %2.</source>
        <translation>%1 ist mehr als die erfassten %2 der Zahlung.</translation>
    </message>
    <message>
        <source>%1 is more than half of the charge&apos;s captured %2.</source>
        <translation>%1 ist mehr als die Hälfte der erfassten %2 der Zahlung.</translation>
    </message>
    <message>
        <source>The charge is %1 days old, past the %2-day card refund window: the provider may refuse the refund.</source>
        <translation>Die Zahlung ist %1 Tage alt, jenseits der %2-Tage-Frist für Kartenerstattungen: Der Anbieter kann die Erstattung ablehnen.</translation>
    </message>
    <message>
        <source> (made outside Countersign)</source>
        <translation> (außerhalb von Countersign erstellt)</translation>
    </message>
    <message>
        <source> (through Countersign)</source>
        <translation> (über Countersign)</translation>
    </message>
    <message>
        <source>Already refunded %1 of %2.</source>
        <translation>Schon erstattet: %1 von %2.</translation>
    </message>
    <message>
        <source>Already refunded %1 of %2: %3.</source>
        <translation>Schon erstattet: %1 von %2: %3.</translation>
    </message>
    <message>
        <source>%1 asked, more than the %2 the provider says is left (captured %3 − refunded %4).</source>
        <translation>%1 angefordert, mehr als die %2, die laut Anbieter übrig sind (erfasst %3 − erstattet %4).</translation>
    </message>
    <message>
        <source>%1 %2 (%3)</source>
        <translation>%1 %2 (%3)</translation>
    </message>
    <message>
        <source>through Countersign</source>
        <translation>über Countersign</translation>
    </message>
    <message>
        <source>The provider did not answer about &lt;code&gt;%1&lt;/code&gt;%2.</source>
        <translation>Der Anbieter hat zu &lt;code&gt;%1&lt;/code&gt;%2 nicht geantwortet.</translation>
    </message>
    <message>
        <source>The provider answered: %1</source>
        <translation>Der Anbieter antwortete: %1</translation>
    </message>
    <message>
        <source>%1 by %2 (%3%4)</source>
        <translation>%1 von %2 (%3%4)</translation>
    </message>
</context>
<context>
    <name>cs::ChargeWindow</name>
    <message>
        <source>Charge view</source>
        <translation>Zahlungsansicht</translation>
    </message>
    <message>
        <source>Charge — Countersign</source>
        <translation>Zahlung — Countersign</translation>
    </message>
    <message>
        <source>&lt;b&gt;Refund budget&lt;/b&gt;</source>
        <translation>&lt;b&gt;Erstattungsbudget&lt;/b&gt;</translation>
    </message>
    <message>
        <source>Refund budget</source>
        <translation>Erstattungsbudget</translation>
    </message>
    <message>
        <source>&amp;Hide rejected</source>
        <translation>&amp;Abgelehnte ausblenden</translation>
    </message>
    <message>
        <source>Rejected actions hold nothing of the charge</source>
        <translation>Abgelehnte Aktionen belegen nichts von der Zahlung</translation>
    </message>
    <message>
        <source>Actions in Countersign on this charge</source>
        <translation>Aktionen in Countersign zu dieser Zahlung</translation>
    </message>
    <message>
        <source>Double-click (or Enter) to select the action in the queue</source>
        <translation>Doppelklick (oder Eingabetaste) wählt die Aktion in der Warteschlange aus</translation>
    </message>
    <message>
        <source>Refunds at the provider</source>
        <translation>Erstattungen beim Anbieter</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>Schließen</translation>
    </message>
    <message>
        <source>Charge %1 — Countersign</source>
        <translation>Zahlung %1 — Countersign</translation>
    </message>
    <message>
        <source>Payment intent %1</source>
        <translation>Payment Intent %1</translation>
    </message>
    <message>
        <source>Charge %1</source>
        <translation>Zahlung %1</translation>
    </message>
    <message>
        <source>of payment intent %1</source>
        <translation>des Payment Intents %1</translation>
    </message>
    <message>
        <source>its charge is not known yet: the provider has not been read</source>
        <translation>seine Zahlung ist noch nicht bekannt: Der Anbieter wurde nicht gelesen</translation>
    </message>
    <message>
        <source>no payment intent</source>
        <translation>kein Payment Intent</translation>
    </message>
    <message>
        <source>Disputed</source>
        <translation>Angefochten</translation>
    </message>
    <message>
        <source>Not disputed</source>
        <translation>Nicht angefochten</translation>
    </message>
    <message>
        <source>The provider has not been asked about this charge yet.</source>
        <translation>Der Anbieter wurde zu dieser Zahlung noch nicht befragt.</translation>
    </message>
    <message>
        <source>Captured</source>
        <translation>Erfasst</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt; of %2</source>
        <translation>&lt;b&gt;%1&lt;/b&gt; von %2</translation>
    </message>
    <message>
        <source>Currency</source>
        <translation>Währung</translation>
    </message>
    <message>
        <source>Purchased</source>
        <translation>Gekauft</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>Card</source>
        <translation>Karte</translation>
    </message>
    <message>
        <source>%1 •••• %2</source>
        <translation>%1 •••• %2</translation>
    </message>
    <message>
        <source>card</source>
        <translation>Karte</translation>
    </message>
    <message>
        <source>Dispute</source>
        <translation>Anfechtung</translation>
    </message>
    <message>
        <source>disputed by the customer: a refund may pay twice</source>
        <translation>vom Kunden angefochten: Eine Erstattung könnte doppelt zahlen</translation>
    </message>
    <message>
        <source>none</source>
        <translation>keine</translation>
    </message>
    <message>
        <source>The provider did not find %1 (HTTP %2).</source>
        <translation>Der Anbieter hat %1 nicht gefunden (HTTP %2).</translation>
    </message>
    <message>
        <source>The provider did not answer about %1%2.</source>
        <translation>Der Anbieter hat zu %1 nicht geantwortet%2.</translation>
    </message>
    <message>
        <source>&lt;b&gt;Budget not known&lt;/b&gt;: the provider has not said what this charge can still refund. Nothing is refused for it; the provider itself refuses a refund over what is left.</source>
        <translation>&lt;b&gt;Budget nicht bekannt&lt;/b&gt;: Der Anbieter hat nicht mitgeteilt, was für diese Zahlung noch erstattet werden kann. Deshalb wird nichts abgewiesen; der Anbieter selbst weist eine Erstattung über den Rest hinaus ab.</translation>
    </message>
    <message>
        <source>%1refunded at the provider &lt;b&gt;%2&lt;/b&gt; &amp;nbsp;&amp;nbsp; %3reserved in Countersign &lt;b&gt;%4&lt;/b&gt; &amp;nbsp;&amp;nbsp; %5&lt;b&gt;%6 left&lt;/b&gt; &amp;nbsp;&amp;nbsp; &lt;span style=&quot;color:%7&quot;&gt;of %8 captured&lt;/span&gt;</source>
        <translation>%1beim Anbieter erstattet &lt;b&gt;%2&lt;/b&gt; &amp;nbsp;&amp;nbsp; %3in Countersign reserviert &lt;b&gt;%4&lt;/b&gt; &amp;nbsp;&amp;nbsp; %5&lt;b&gt;%6 übrig&lt;/b&gt; &amp;nbsp;&amp;nbsp; &lt;span style=&quot;color:%7&quot;&gt;von %8 erfasst&lt;/span&gt;</translation>
    </message>
    <message>
        <source>Over-committed by %1: Countersign holds more than the provider says is left.</source>
        <translation>Um %1 überbucht: Countersign hält mehr, als laut Anbieter übrig ist.</translation>
    </message>
    <message>
        <source>What a new proposal may still ask for. Reserved: every action on the charge Countersign may still send (pending, in flight, unknown, under review, or completed but not yet in the provider&apos;s read).</source>
        <translation>Was ein neuer Vorschlag noch verlangen kann. Reserviert: jede Aktion zu dieser Zahlung, die Countersign noch senden könnte (ausstehend, unterwegs, unbekannt, in Prüfung oder abgeschlossen, aber noch nicht im Stand des Anbieters).</translation>
    </message>
    <message>
        <source>&lt;b&gt;Actions in Countersign&lt;/b&gt; (%1)</source>
        <translation>&lt;b&gt;Aktionen in Countersign&lt;/b&gt; (%1)</translation>
    </message>
    <message>
        <source>%1 shown</source>
        <translation>%1 angezeigt</translation>
    </message>
    <message>
        <source>the newest 500; older ones are not listed</source>
        <translation>die neuesten 500; ältere sind nicht aufgeführt</translation>
    </message>
    <message>
        <source>&lt;b&gt;Refunds at the provider&lt;/b&gt; (%1) — as the read listed them</source>
        <translation>&lt;b&gt;Erstattungen beim Anbieter&lt;/b&gt; (%1) — wie der Abruf sie aufführte</translation>
    </message>
    <message>
        <source>&lt;b&gt;Refunds at the provider&lt;/b&gt; — not known without a read</source>
        <translation>&lt;b&gt;Erstattungen beim Anbieter&lt;/b&gt; — ohne Abruf nicht bekannt</translation>
    </message>
    <message>
        <source>Reloading… Shown meanwhile: what was recorded before.</source>
        <translation>Wird neu geladen… Bis dahin angezeigt: der zuvor gespeicherte Stand.</translation>
    </message>
    <message>
        <source>Loading %1…</source>
        <translation>%1 wird geladen…</translation>
    </message>
    <message>
        <source>Looking the charge up at the provider now…</source>
        <translation>Die Zahlung wird jetzt beim Anbieter abgefragt…</translation>
    </message>
    <message>
        <source>&lt;b&gt;Offline&lt;/b&gt; — the backend does not answer (%1). Shown: what was recorded before; Refresh once it is back.</source>
        <translation>&lt;b&gt;Offline&lt;/b&gt; — das Backend antwortet nicht (%1). Angezeigt: der zuvor gespeicherte Stand; aktualisieren Sie, sobald es wieder da ist.</translation>
    </message>
    <message>
        <source>&lt;b&gt;Offline&lt;/b&gt; — the backend does not answer (%1). Nothing can be shown until it is back.</source>
        <translation>&lt;b&gt;Offline&lt;/b&gt; — das Backend antwortet nicht (%1). Bis es wieder da ist, kann nichts angezeigt werden.</translation>
    </message>
    <message>
        <source>&lt;b&gt;Could not read the charge&lt;/b&gt;: %1</source>
        <translation>&lt;b&gt;Die Zahlung konnte nicht gelesen werden&lt;/b&gt;: %1</translation>
    </message>
    <message>
        <source>Never read from the provider.</source>
        <translation>Nie beim Anbieter gelesen.</translation>
    </message>
    <message>
        <source>when an action was proposed</source>
        <translation>als eine Aktion vorgeschlagen wurde</translation>
    </message>
    <message>
        <source>by %1</source>
        <translation>von %1</translation>
    </message>
    <message>
        <source>Last read from the provider &lt;b&gt;%1&lt;/b&gt; %2 (%3).</source>
        <translation>Zuletzt beim Anbieter gelesen: &lt;b&gt;%1&lt;/b&gt;, %2 (%3).</translation>
    </message>
    <message>
        <source>&amp;Look up now</source>
        <translation>Jetzt a&amp;bfragen</translation>
    </message>
    <message>
        <source>&amp;Reload</source>
        <translation>&amp;Neu laden</translation>
    </message>
    <message>
        <source>Ask the provider for this charge now and record what it says (F5)</source>
        <translation>Den Anbieter jetzt zu dieser Zahlung befragen und seine Antwort speichern (F5)</translation>
    </message>
    <message>
        <source>Read again what Countersign recorded (F5); your role may not ask the provider</source>
        <translation>Erneut lesen, was Countersign gespeichert hat (F5); Ihre Rolle darf den Anbieter nicht befragen</translation>
    </message>
    <message>
        <source>1 refund made outside Countersign</source>
        <translation>1 Erstattung außerhalb von Countersign</translation>
    </message>
    <message>
        <source>%1 refunds made outside Countersign</source>
        <translation>%1 Erstattungen außerhalb von Countersign</translation>
    </message>
    <message>
        <source>⚠ &lt;b&gt;%1&lt;/b&gt; (%2: %3) — not approved in Countersign, and counted against what the charge can still refund.</source>
        <translation>⚠ &lt;b&gt;%1&lt;/b&gt; (%2: %3) — nicht in Countersign freigegeben und von dem abgezogen, was die Zahlung noch erstatten kann.</translation>
    </message>
    <message numerus="yes">
        <source>⚠ &lt;b&gt;%n refund(s) not through Countersign — from a webhook&lt;/b&gt; (%1): the provider&apos;s webhooks announced them, made in its dashboard or by another system, and no read of the charge lists them yet. The budget counts them once a read does.</source>
        <translation>
            <numerusform>⚠ &lt;b&gt;%n Erstattung nicht über Countersign — aus einem Webhook&lt;/b&gt; (%1): Die Webhooks des Anbieters haben sie gemeldet, ausgelöst in seinem Dashboard oder von einem anderen System, und noch kein Abruf der Zahlung führt sie auf. Das Budget zählt sie, sobald ein Abruf sie aufführt.</numerusform>
            <numerusform>⚠ &lt;b&gt;%n Erstattungen nicht über Countersign — aus einem Webhook&lt;/b&gt; (%1): Die Webhooks des Anbieters haben sie gemeldet, ausgelöst in seinem Dashboard oder von einem anderen System, und noch kein Abruf der Zahlung führt sie auf. Das Budget zählt sie, sobald ein Abruf sie aufführt.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>&lt;b&gt;Refunds at the provider&lt;/b&gt; (%1) — as the read listed them, with what %n webhook event(s) since announced</source>
        <translation>
            <numerusform>&lt;b&gt;Erstattungen beim Anbieter&lt;/b&gt; (%1) — wie der Abruf sie aufführte, mit dem, was %n Webhook-Ereignis seither meldete</numerusform>
            <numerusform>&lt;b&gt;Erstattungen beim Anbieter&lt;/b&gt; (%1) — wie der Abruf sie aufführte, mit dem, was %n Webhook-Ereignisse seither meldeten</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>&lt;b&gt;Refunds at the provider&lt;/b&gt; (%1) — as %n webhook event(s) announced them; no read lists them</source>
        <translation>
            <numerusform>&lt;b&gt;Erstattungen beim Anbieter&lt;/b&gt; (%1) — wie %n Webhook-Ereignis sie meldete; kein Abruf führt sie auf</numerusform>
            <numerusform>&lt;b&gt;Erstattungen beim Anbieter&lt;/b&gt; (%1) — wie %n Webhook-Ereignisse sie meldeten; kein Abruf führt sie auf</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>cs::CloseWithNoteDialog</name>
    <message>
        <source>Closing note</source>
        <translation>Notiz zum Schließen</translation>
    </message>
    <message>
        <source>The note is %1 characters long; at most %2 are recorded.</source>
        <translation>Die Notiz ist %1 Zeichen lang; höchstens %2 werden gespeichert.</translation>
    </message>
</context>
<context>
    <name>cs::ConnectionDialog</name>
    <message>
        <source>Connection profile</source>
        <translation>Verbindungsprofil</translation>
    </message>
    <message>
        <source>The console talks to &lt;b&gt;countersignd&lt;/b&gt; only through its REST API. Enter the backend&apos;s address and your bearer token (from &lt;code&gt;countersignd user add&lt;/code&gt;).</source>
        <translation>Die Konsole spricht mit &lt;b&gt;countersignd&lt;/b&gt; nur über dessen REST-API. Geben Sie die Adresse des Backends und Ihr Bearer-Token ein (von &lt;code&gt;countersignd user add&lt;/code&gt;).</translation>
    </message>
    <message>
        <source>Backend URL</source>
        <translation>Backend-URL</translation>
    </message>
    <message>
        <source>&amp;Backend URL:</source>
        <translation>&amp;Backend-URL:</translation>
    </message>
    <message>
        <source>Bearer token</source>
        <translation>Bearer-Token</translation>
    </message>
    <message>
        <source>&amp;Test</source>
        <translation>&amp;Testen</translation>
    </message>
    <message>
        <source>T&amp;oken:</source>
        <translation>T&amp;oken:</translation>
    </message>
    <message>
        <source>&amp;Remember the token</source>
        <translation>Token &amp;merken</translation>
    </message>
    <message>
        <source>Connect</source>
        <translation>Verbinden</translation>
    </message>
    <message>
        <source>Asking %1…</source>
        <translation>%1 wird gefragt…</translation>
    </message>
</context>
<context>
    <name>cs::DecisionController</name>
    <message>
        <source> (the backend replayed its first answer)</source>
        <translation> (das Backend hat seine erste Antwort wiederholt)</translation>
    </message>
    <message>
        <source>Rejected %1%2.</source>
        <translation>%1 abgelehnt%2.</translation>
    </message>
    <message>
        <source>Reconciled %1%2.</source>
        <translation>%1 abgeglichen%2.</translation>
    </message>
    <message>
        <source>the backend&apos;s answer could not be read (%1)</source>
        <translation>die Antwort des Backends konnte nicht gelesen werden (%1)</translation>
    </message>
    <message>
        <source>Closed the discrepancy of %1 with your note%2.</source>
        <translation>Abweichung von %1 mit Ihrer Notiz geschlossen%2.</translation>
    </message>
    <message>
        <source>the refund of %1 for %2</source>
        <translation>die Erstattung über %1 für %2</translation>
    </message>
    <message>
        <source>the refund of %1 on %2</source>
        <translation>die Erstattung über %1 auf %2</translation>
    </message>
    <message>
        <source>Stopped waiting for the backend. Whether it received your decision is unknown; confirm again to send the same request once more (it cannot apply twice).</source>
        <translation>Warten auf das Backend beendet. Ob es Ihre Entscheidung erhalten hat, ist unbekannt; bestätigen Sie erneut, um dieselbe Anfrage noch einmal zu senden (sie kann nicht zweimal wirken).</translation>
    </message>
    <message>
        <source>Your decision on %1 was not confirmed by the backend.</source>
        <translation>Ihre Entscheidung über %1 wurde vom Backend nicht bestätigt.</translation>
    </message>
    <message>
        <source>Your decision on %1 was refused: %2</source>
        <translation>Ihre Entscheidung über %1 wurde abgelehnt: %2</translation>
    </message>
    <message>
        <source>Look-up recorded for %1%2.</source>
        <translation>Abfrage für %1 gespeichert%2.</translation>
    </message>
    <message>
        <source>Follow-up of %1 proposed for %2; it needs its own approval%3.</source>
        <translation>Folgeaktion über %1 für %2 vorgeschlagen; sie braucht ihre eigene Freigabe%3.</translation>
    </message>
    <message>
        <source>Your signature on %1 counted: %2. Nothing is sent until %3 different approvers have signed%4.</source>
        <translation>Ihre Unterschrift für %1 zählt: %2. Gesendet wird nichts, bis %3 verschiedene Freigebende unterschrieben haben%4.</translation>
    </message>
    <message>
        <source>Approved %1. Nothing is sent until the executor sends it%2.</source>
        <translation>%1 freigegeben. Gesendet wird erst, wenn die Ausführung sie sendet%2.</translation>
    </message>
    <message>
        <source>Closed %1 without re-sending it%2.</source>
        <translation>%1 ohne erneutes Senden geschlossen%2.</translation>
    </message>
</context>
<context>
    <name>cs::DecisionDialog</name>
    <message>
        <source>Confirm</source>
        <translation>Bestätigen</translation>
    </message>
    <message>
        <source>Not allowed now.</source>
        <translation>Jetzt nicht erlaubt.</translation>
    </message>
    <message>
        <source>&lt;b&gt;Someone else acted on this action while you were deciding.&lt;/b&gt; It is now at state version %1. What changed:</source>
        <translation>&lt;b&gt;Jemand anderes hat diese Aktion bearbeitet, während Sie entschieden haben.&lt;/b&gt; Sie hat jetzt Zustandsversion %1. Was sich geändert hat:</translation>
    </message>
    <message>
        <source>Your input is kept. Review it and confirm again, or cancel.</source>
        <translation>Ihre Eingaben bleiben erhalten. Prüfen Sie sie und bestätigen Sie erneut, oder brechen Sie ab.</translation>
    </message>
    <message>
        <source>Sending…</source>
        <translation>Wird gesendet…</translation>
    </message>
    <message>
        <source>Not done.</source>
        <translation>Nicht erledigt.</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>Schließen</translation>
    </message>
    <message>
        <source>&lt;b&gt;No answer from the backend&lt;/b&gt; (%1). Your decision is kept and is being sent again automatically as the same request, so it cannot be applied twice — attempt %2.</source>
        <translation>&lt;b&gt;Keine Antwort vom Backend&lt;/b&gt; (%1). Ihre Entscheidung bleibt erhalten und wird automatisch als dieselbe Anfrage erneut gesendet, sie kann also nicht zweimal wirken — Versuch %2.</translation>
    </message>
    <message>
        <source>Resent with the same Idempotency-Key %1 and If-Match: the backend applies it once.</source>
        <translation>Erneut gesendet mit demselben Idempotency-Key %1 und If-Match: Das Backend wendet sie einmal an.</translation>
    </message>
    <message>
        <source>%1 on %2, requested by %3</source>
        <translation>%1 auf %2, angefordert von %3</translation>
    </message>
    <message>
        <source>%1 for %2, requested by %3</source>
        <translation>%1 für %2, angefordert von %3</translation>
    </message>
    <message>
        <source>%1 — %2</source>
        <translation>%1 — %2</translation>
    </message>
</context>
<context>
    <name>cs::DemoController</name>
    <message>
        <source>Scenario ended as expected.</source>
        <translation>Das Szenario endete wie erwartet.</translation>
    </message>
    <message>
        <source>Scenario did NOT end as expected.</source>
        <translation>Das Szenario endete NICHT wie erwartet.</translation>
    </message>
    <message>
        <source>%1. %2</source>
        <translation>%1. %2</translation>
    </message>
    <message>
        <source>Agent traffic could not start: %1</source>
        <translation>Der Agentenverkehr konnte nicht starten: %1</translation>
    </message>
    <message numerus="yes">
        <source>Agent traffic: paysim is down for %n second(s); refunds approved now may end in CONFIRMATION_UNKNOWN.</source>
        <translation>
            <numerusform>Agentenverkehr: paysim ist für %n Sekunde ausgefallen; jetzt freigegebene Erstattungen können in CONFIRMATION_UNKNOWN enden.</numerusform>
            <numerusform>Agentenverkehr: paysim ist für %n Sekunden ausgefallen; jetzt freigegebene Erstattungen können in CONFIRMATION_UNKNOWN enden.</numerusform>
        </translation>
    </message>
    <message>
        <source>Agent traffic: paysim answers again.</source>
        <translation>Agentenverkehr: paysim antwortet wieder.</translation>
    </message>
    <message numerus="yes">
        <source>Agent traffic waits: %n action(s) are pending; it proposes again once some are decided.</source>
        <translation>
            <numerusform>Agentenverkehr wartet: %n Aktion ist ausstehend; er schlägt wieder vor, sobald entschieden wurde.</numerusform>
            <numerusform>Agentenverkehr wartet: %n Aktionen sind ausstehend; er schlägt wieder vor, sobald über einige entschieden wurde.</numerusform>
        </translation>
    </message>
    <message>
        <source>Sce&amp;narios</source>
        <translation>&amp;Szenarien</translation>
    </message>
    <message>
        <source>&amp;%1 %2</source>
        <translation>&amp;%1 %2</translation>
    </message>
    <message>
        <source>Play &amp;continuously</source>
        <translation>&amp;Durchgehend abspielen</translation>
    </message>
    <message>
        <source>&amp;Step by step</source>
        <translation>&amp;Schrittweise</translation>
    </message>
    <message>
        <source>&amp;Next step</source>
        <translation>&amp;Nächster Schritt</translation>
    </message>
    <message>
        <source>&amp;Cancel scenario</source>
        <translation>Szenario a&amp;bbrechen</translation>
    </message>
    <message>
        <source>&amp;Demo</source>
        <translation>De&amp;mo</translation>
    </message>
    <message>
        <source>&amp;Refresh ground truth</source>
        <translation>Tatsächlichen Stand a&amp;ktualisieren</translation>
    </message>
    <message>
        <source>Agent &amp;traffic</source>
        <translation>Agenten&amp;verkehr</translation>
    </message>
    <message>
        <source>Scripted agents propose refunds every few seconds and never approve them; paused while a scenario plays.</source>
        <translation>Geskriptete Agenten schlagen alle paar Sekunden Erstattungen vor und geben sie nie frei; pausiert, während ein Szenario läuft.</translation>
    </message>
    <message>
        <source>&amp;Exercise: you decide</source>
        <translation>&amp;Übung: Sie entscheiden</translation>
    </message>
    <message>
        <source>The scenario stops where a person must decide and waits for you to do it in the console; then it checks your decision against the provider&apos;s ground truth.</source>
        <translation>Das Szenario hält an, wo ein Mensch entscheiden muss, und wartet, bis Sie es in der Konsole tun; dann prüft es Ihre Entscheidung am tatsächlichen Stand beim Anbieter.</translation>
    </message>
    <message>
        <source>%1 %2</source>
        <comment>a scenario&apos;s number (with its mnemonic &amp;) and title</comment>
        <translation>%1 %2</translation>
    </message>
    <message>
        <source>The demo&apos;s backend could not be restarted: see %1</source>
        <translation>Das Backend der Demo konnte nicht neu gestartet werden: siehe %1</translation>
    </message>
</context>
<context>
    <name>cs::DetailsDisclosure</name>
    <message>
        <source>Details</source>
        <translation>Details</translation>
    </message>
    <message>
        <source>The server&apos;s reason and the provider&apos;s answer, as they were given</source>
        <translation>Der Grund des Servers und die Antwort des Anbieters, wie sie gegeben wurden</translation>
    </message>
</context>
<context>
    <name>cs::Discrepancy</name>
    <message numerus="yes">
        <source>The provider holds %n refunds for this action</source>
        <translation>
            <numerusform>Der Anbieter hält %n Erstattung für diese Aktion</numerusform>
            <numerusform>Der Anbieter hält %n Erstattungen für diese Aktion</numerusform>
        </translation>
    </message>
    <message>
        <source>The provider holds a refund that contradicts this action</source>
        <translation>Der Anbieter hält eine Erstattung, die dieser Aktion widerspricht</translation>
    </message>
</context>
<context>
    <name>cs::DiscrepancyBanner</name>
    <message>
        <source>Close with a note…</source>
        <translation>Mit Notiz schließen…</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1.&lt;/b&gt; Money may have gone out twice: this %2 refund was made %3 times at the provider.</source>
        <translation>&lt;b&gt;%1.&lt;/b&gt; Womöglich ist zweimal Geld geflossen: Diese Erstattung über %2 wurde beim Anbieter %3-mal ausgeführt.</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1.&lt;/b&gt; What the provider holds does not match this %2 refund in state %3.</source>
        <translation>&lt;b&gt;%1.&lt;/b&gt; Was der Anbieter hält, passt nicht zu dieser Erstattung über %2 im Zustand %3.</translation>
    </message>
    <message>
        <source>a notification from the provider</source>
        <translation>einer Benachrichtigung des Anbieters</translation>
    </message>
    <message>
        <source>the reconciler</source>
        <translation>dem Reconciler</translation>
    </message>
    <message>
        <source>a scheduled check of the refund</source>
        <translation>einer geplanten Prüfung der Erstattung</translation>
    </message>
    <message>
        <source>a look-up by %1</source>
        <translation>einer Abfrage durch %1</translation>
    </message>
    <message>
        <source>%1 First seen on %2, in %3. Nothing is undone by itself: check the refunds at the provider and with the customer, then close this with a note. The provider&apos;s refunds are in the &lt;i&gt;Evidence&lt;/i&gt; tab.</source>
        <translation>%1 Zuerst gesehen am %2, in %3. Nichts wird von selbst rückgängig gemacht: Prüfen Sie die Erstattungen beim Anbieter und mit dem Kunden und schließen Sie dies dann mit einer Notiz. Die Erstattungen des Anbieters stehen im Reiter &lt;i&gt;Nachweise&lt;/i&gt;.</translation>
    </message>
</context>
<context>
    <name>cs::DiscrepancyCloseDialog</name>
    <message>
        <source>&amp;Note (required: what you found and what was done):</source>
        <translation>&amp;Notiz (erforderlich: was Sie festgestellt haben und was getan wurde):</translation>
    </message>
    <message>
        <source>e.g. second refund confirmed with the customer, kept as goodwill; ticket 4411</source>
        <translation>z. B. zweite Erstattung mit dem Kunden geklärt, als Kulanz belassen; Ticket 4411</translation>
    </message>
    <message>
        <source>Close discrepancy</source>
        <translation>Abweichung schließen</translation>
    </message>
    <message>
        <source>Close the discrepancy</source>
        <translation>Abweichung schließen</translation>
    </message>
    <message>
        <source>This action has no open discrepancy: it was closed already.</source>
        <translation>Zu dieser Aktion ist keine Abweichung offen: Sie wurde schon geschlossen.</translation>
    </message>
    <message>
        <source>Write a note: what you found at the provider and what was done about it.</source>
        <translation>Schreiben Sie eine Notiz: was Sie beim Anbieter festgestellt haben und was unternommen wurde.</translation>
    </message>
    <message>
        <source>&lt;p style=&quot;font-size:large&quot;&gt;&lt;b&gt;%1&lt;/b&gt;&lt;/p&gt;</source>
        <translation>&lt;p style=&quot;font-size:large&quot;&gt;&lt;b&gt;%1&lt;/b&gt;&lt;/p&gt;</translation>
    </message>
    <message>
        <source>No discrepancy</source>
        <translation>Keine Abweichung</translation>
    </message>
    <message>
        <source>&lt;p&gt;This action is a refund of &lt;b&gt;%1&lt;/b&gt; for order &lt;b&gt;%2&lt;/b&gt;.&lt;/p&gt;</source>
        <translation>&lt;p&gt;Diese Aktion ist eine Erstattung von &lt;b&gt;%1&lt;/b&gt; für Bestellung &lt;b&gt;%2&lt;/b&gt;.&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;%1&lt;/p&gt;</source>
        <translation>&lt;p&gt;%1&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;Closing records that you checked the refunds at the provider and dealt with the customer; &lt;b&gt;nothing is sent or undone&lt;/b&gt; by Countersign, and the action keeps its state. A refund not seen before opens it again.&lt;/p&gt;</source>
        <translation>&lt;p&gt;Das Schließen hält fest, dass Sie die Erstattungen beim Anbieter geprüft und mit dem Kunden geklärt haben; Countersign &lt;b&gt;sendet nichts und macht nichts rückgängig&lt;/b&gt;, und die Aktion behält ihren Zustand. Eine bisher nicht gesehene Erstattung öffnet sie wieder.&lt;/p&gt;</translation>
    </message>
</context>
<context>
    <name>cs::EventStreamClient</name>
    <message>
        <source>no heartbeat for %1 s</source>
        <translation>seit %1 s kein Lebenszeichen</translation>
    </message>
</context>
<context>
    <name>cs::ExecutionController</name>
    <message>
        <source>&amp;Pause execution…</source>
        <translation>Ausführung &amp;pausieren…</translation>
    </message>
    <message>
        <source>&amp;Resume execution…</source>
        <translation>Ausführung &amp;fortsetzen…</translation>
    </message>
    <message>
        <source>Stop claiming new work: everything, one agent or one provider account</source>
        <translation>Keine neue Arbeit mehr übernehmen: alles, ein Agent oder ein Anbieterkonto</translation>
    </message>
    <message>
        <source>Resume a pause in force</source>
        <translation>Eine geltende Pause beenden</translation>
    </message>
    <message>
        <source>Could not read the execution state: %1</source>
        <translation>Der Ausführungszustand konnte nicht gelesen werden: %1</translation>
    </message>
    <message>
        <source>The backend&apos;s execution state could not be read: %1</source>
        <translation>Der Ausführungszustand des Backends konnte nicht gelesen werden: %1</translation>
    </message>
    <message>
        <source>Execution: unknown</source>
        <translation>Ausführung: unbekannt</translation>
    </message>
    <message>
        <source>Execution: not read yet</source>
        <translation>Ausführung: noch nicht gelesen</translation>
    </message>
    <message>
        <source>Shown: what was in force when last read.</source>
        <translation>Angezeigt: was beim letzten Lesen galt.</translation>
    </message>
    <message>
        <source>Execution running</source>
        <translation>Ausführung läuft</translation>
    </message>
    <message>
        <source>No pause is in force: approved actions are claimed and sent.</source>
        <translation>Keine Pause gilt: Freigegebene Aktionen werden übernommen und gesendet.</translation>
    </message>
    <message>
        <source>&lt;b&gt;Execution paused&lt;/b&gt; — nothing a pause covers is claimed; what was in flight finishes.&lt;ul style=&quot;margin:2px 0 0 -20px&quot;&gt;</source>
        <translation>&lt;b&gt;Ausführung pausiert&lt;/b&gt; — nichts, was eine Pause abdeckt, wird übernommen; was unterwegs war, wird beendet.&lt;ul style=&quot;margin:2px 0 0 -20px&quot;&gt;</translation>
    </message>
    <message>
        <source>%1 — paused by %2 at %3: %4</source>
        <translation>%1 — pausiert von %2 um %3: %4</translation>
    </message>
    <message>
        <source>not signed in</source>
        <translation>nicht angemeldet</translation>
    </message>
    <message>
        <source>signed in as %1</source>
        <translation>angemeldet als %1</translation>
    </message>
    <message>
        <source>Pausing and resuming execution is for supervisors and admins; you are %1.</source>
        <translation>Das Pausieren und Fortsetzen der Ausführung ist Supervisoren und Admins vorbehalten; Sie sind %1.</translation>
    </message>
    <message>
        <source>Nothing is paused now.</source>
        <translation>Derzeit ist nichts pausiert.</translation>
    </message>
    <message>
        <source>Execution paused: %1.</source>
        <translation>Ausführung pausiert: %1.</translation>
    </message>
    <message>
        <source>Execution resumed: %1.</source>
        <translation>Ausführung fortgesetzt: %1.</translation>
    </message>
    <message>
        <source>stopped waiting</source>
        <translation>Warten beendet</translation>
    </message>
    <message>
        <source>No answer from the backend (%1): whether it was recorded is unknown; the status bar shows what is in force once the backend answers. Confirming the same again sends the same request once more.</source>
        <translation>Keine Antwort vom Backend (%1): Ob es gespeichert wurde, ist unbekannt; die Statusleiste zeigt, was gilt, sobald das Backend antwortet. Dasselbe erneut zu bestätigen sendet dieselbe Anfrage noch einmal.</translation>
    </message>
    <message>
        <source>Execution: unknown while offline</source>
        <translation>Ausführung: unbekannt, solange offline</translation>
    </message>
    <message>
        <source>The backend does not answer, so what is in force now is not known. Last read: %1.</source>
        <translation>Das Backend antwortet nicht, daher ist unbekannt, was jetzt gilt. Zuletzt gelesen: %1.</translation>
    </message>
    <message>
        <source>The backend does not answer, so what is in force now is not known.</source>
        <translation>Das Backend antwortet nicht, daher ist unbekannt, was jetzt gilt.</translation>
    </message>
</context>
<context>
    <name>cs::ExecutionDialog</name>
    <message>
        <source>OK</source>
        <translation>OK</translation>
    </message>
    <message>
        <source>Sending…</source>
        <translation>Wird gesendet…</translation>
    </message>
    <message>
        <source>Not done.</source>
        <translation>Nicht erledigt.</translation>
    </message>
    <message>
        <source>&lt;b&gt;No answer from the backend&lt;/b&gt; (%1). Your request is kept and is being sent again automatically as the same request, so it cannot take effect twice — attempt %2.</source>
        <translation>&lt;b&gt;Keine Antwort vom Backend&lt;/b&gt; (%1). Ihre Anfrage bleibt erhalten und wird automatisch als dieselbe Anfrage erneut gesendet, sie kann also nicht zweimal wirken — Versuch %2.</translation>
    </message>
    <message>
        <source>Resent with the same Idempotency-Key %1: the backend applies it once.</source>
        <translation>Erneut gesendet mit demselben Idempotency-Key %1: Das Backend wendet sie einmal an.</translation>
    </message>
</context>
<context>
    <name>cs::ExecutionPause</name>
    <message>
        <source>all</source>
        <comment>what is paused</comment>
        <translation>alles</translation>
    </message>
    <message>
        <source>agent %1</source>
        <comment>what is paused</comment>
        <translation>Agent %1</translation>
    </message>
    <message>
        <source>account %1</source>
        <comment>what is paused: a provider account</comment>
        <translation>Konto %1</translation>
    </message>
    <message>
        <source>Execution paused: %1 — by %2: %3</source>
        <translation>Ausführung pausiert: %1 — von %2: %3</translation>
    </message>
    <message>
        <source>Execution paused (%1): %2</source>
        <translation>Ausführung pausiert (%1): %2</translation>
    </message>
</context>
<context>
    <name>cs::ExportController</name>
    <message>
        <source>&amp;Export actions…</source>
        <translation>Aktionen &amp;exportieren…</translation>
    </message>
    <message>
        <source>Export every action of the queue&apos;s current filter and search, all pages, as CSV or JSON</source>
        <translation>Jede Aktion des aktuellen Filters und der Suche der Warteschlange exportieren, alle Seiten, als CSV oder JSON</translation>
    </message>
    <message>
        <source>Export this action&apos;s &amp;history…</source>
        <translation>Verlau&amp;f dieser Aktion exportieren…</translation>
    </message>
    <message>
        <source>Export the shown action&apos;s attempts, look-ups, approvals, reconciliations and audit as CSV or JSON</source>
        <translation>Versuche, Abfragen, Freigaben, Abgleiche und Prüfprotokoll der angezeigten Aktion als CSV oder JSON exportieren</translation>
    </message>
    <message>
        <source>CSV, for spreadsheets (*.csv)</source>
        <translation>CSV, für Tabellenkalkulationen (*.csv)</translation>
    </message>
    <message>
        <source>JSON (*.json)</source>
        <translation>JSON (*.json)</translation>
    </message>
    <message>
        <source>An export is running; wait for it or cancel it first.</source>
        <translation>Ein Export läuft; warten Sie darauf oder brechen Sie ihn zuerst ab.</translation>
    </message>
    <message>
        <source>countersign-actions-%1</source>
        <translation>countersign-aktionen-%1</translation>
    </message>
    <message>
        <source>Export actions</source>
        <translation>Aktionen exportieren</translation>
    </message>
    <message>
        <source>Select an action first: its history is what is exported.</source>
        <translation>Wählen Sie zuerst eine Aktion aus: Exportiert wird ihr Verlauf.</translation>
    </message>
    <message>
        <source>Export the history of %1</source>
        <translation>Verlauf von %1 exportieren</translation>
    </message>
    <message>
        <source>%1-history</source>
        <translation>%1-verlauf</translation>
    </message>
    <message>
        <source>Exporting actions</source>
        <translation>Aktionen werden exportiert</translation>
    </message>
    <message>
        <source>Reading the first page…</source>
        <translation>Die erste Seite wird gelesen…</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>Exporting the history of %1…</source>
        <translation>Der Verlauf von %1 wird exportiert…</translation>
    </message>
    <message numerus="yes">
        <source>Exported %Ln action(s) to %1 (%2).</source>
        <translation>
            <numerusform>%Ln Aktion nach %1 exportiert (%2).</numerusform>
            <numerusform>%Ln Aktionen nach %1 exportiert (%2).</numerusform>
        </translation>
    </message>
    <message>
        <source>Export cancelled: no file was written.</source>
        <translation>Export abgebrochen: Es wurde keine Datei geschrieben.</translation>
    </message>
    <message>
        <source>Export failed, no file was written: %1</source>
        <translation>Export fehlgeschlagen, es wurde keine Datei geschrieben: %1</translation>
    </message>
    <message>
        <source>Exported the history of %1 to %2 (%3).</source>
        <translation>Verlauf von %1 nach %2 exportiert (%3).</translation>
    </message>
    <message>
        <source>Exporting to %1</source>
        <translation>Export nach %1</translation>
    </message>
    <message>
        <source>%L1 of %L2 actions written…</source>
        <translation>%L1 von %L2 Aktionen geschrieben…</translation>
    </message>
    <message numerus="yes">
        <source>%Ln action(s) written…</source>
        <translation>
            <numerusform>%Ln Aktion geschrieben…</numerusform>
            <numerusform>%Ln Aktionen geschrieben…</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>cs::FactsTableModel</name>
    <message>
        <source>Fact</source>
        <translation>Fakt</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>Wert</translation>
    </message>
</context>
<context>
    <name>cs::FaultInjectionPanel</name>
    <message>
        <source>Fault injection</source>
        <translation>Fehlerinjektion</translation>
    </message>
    <message>
        <source>HTTP method</source>
        <translation>HTTP-Methode</translation>
    </message>
    <message>
        <source>Path</source>
        <translation>Pfad</translation>
    </message>
    <message>
        <source>Exact path, a prefix ending in *, or * for any</source>
        <translation>Genauer Pfad, ein Präfix mit * am Ende oder * für jeden</translation>
    </message>
    <message>
        <source>Fault</source>
        <translation>Fehler</translation>
    </message>
    <message>
        <source>First matching request that may fire</source>
        <translation>Erste passende Anfrage, bei der er auslösen darf</translation>
    </message>
    <message>
        <source>unlimited</source>
        <translation>unbegrenzt</translation>
    </message>
    <message>
        <source>How many times it fires</source>
        <translation>Wie oft er auslöst</translation>
    </message>
    <message>
        <source>Probability</source>
        <translation>Wahrscheinlichkeit</translation>
    </message>
    <message>
        <source> ms</source>
        <translation> ms</translation>
    </message>
    <message>
        <source>Delay in milliseconds</source>
        <translation>Verzögerung in Millisekunden</translation>
    </message>
    <message>
        <source>&amp;Method</source>
        <translation>&amp;Methode</translation>
    </message>
    <message>
        <source>&amp;Path</source>
        <translation>&amp;Pfad</translation>
    </message>
    <message>
        <source>&amp;Fault</source>
        <translation>&amp;Fehler</translation>
    </message>
    <message>
        <source>&amp;Nth match</source>
        <translation>&amp;N-ter Treffer</translation>
    </message>
    <message>
        <source>&amp;Times</source>
        <translation>&amp;Anzahl</translation>
    </message>
    <message>
        <source>P&amp;robability</source>
        <translation>&amp;Wahrscheinlichkeit</translation>
    </message>
    <message>
        <source>&amp;Delay</source>
        <translation>&amp;Verzögerung</translation>
    </message>
    <message>
        <source>Add rule</source>
        <translation>Regel hinzufügen</translation>
    </message>
    <message>
        <source>Add the fault rule</source>
        <translation>Die Fehlerregel hinzufügen</translation>
    </message>
    <message>
        <source>Current fault rules</source>
        <translation>Aktuelle Fehlerregeln</translation>
    </message>
    <message>
        <source>Id</source>
        <translation>ID</translation>
    </message>
    <message>
        <source>Method</source>
        <translation>Methode</translation>
    </message>
    <message>
        <source>Nth</source>
        <translation>N-ter</translation>
    </message>
    <message>
        <source>Times</source>
        <translation>Anzahl</translation>
    </message>
    <message>
        <source>Delay</source>
        <translation>Verzögerung</translation>
    </message>
    <message>
        <source>Matched</source>
        <translation>Getroffen</translation>
    </message>
    <message>
        <source>Fired</source>
        <translation>Ausgelöst</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>Aktualisieren</translation>
    </message>
    <message>
        <source>Refresh the fault rules</source>
        <translation>Die Fehlerregeln aktualisieren</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>Löschen</translation>
    </message>
    <message>
        <source>Delete the selected rule</source>
        <translation>Die ausgewählte Regel löschen</translation>
    </message>
    <message>
        <source>Clear all</source>
        <translation>Alle löschen</translation>
    </message>
    <message>
        <source>Delete every fault rule</source>
        <translation>Jede Fehlerregel löschen</translation>
    </message>
    <message>
        <source>paysim answered %1: %2</source>
        <translation>paysim antwortete %1: %2</translation>
    </message>
</context>
<context>
    <name>cs::FollowUpDialog</name>
    <message>
        <source>Propose a follow-up adjustment</source>
        <translation>Eine Folgeaktion zur Korrektur vorschlagen</translation>
    </message>
    <message>
        <source>Desired total refund</source>
        <translation>Gewünschte Gesamterstattung</translation>
    </message>
    <message>
        <source>e.g. 45.00</source>
        <translation>z. B. 45.00</translation>
    </message>
    <message>
        <source>&amp;Desired total (%1):</source>
        <translation>&amp;Gewünschte Summe (%1):</translation>
    </message>
    <message>
        <source>Remainder to refund:</source>
        <translation>Noch zu erstatten:</translation>
    </message>
    <message>
        <source>Follow-up note</source>
        <translation>Notiz zur Folgeaktion</translation>
    </message>
    <message>
        <source>&amp;Note (required):</source>
        <translation>&amp;Notiz (Pflicht):</translation>
    </message>
    <message>
        <source>Propose follow-up</source>
        <translation>Folgeaktion vorschlagen</translation>
    </message>
    <message>
        <source>Enter the total the customer should be refunded, across this action and its follow-ups.</source>
        <translation>Geben Sie die Summe ein, die der Kunde insgesamt erstattet bekommen soll, über diese Aktion und ihre Folgeaktionen.</translation>
    </message>
    <message>
        <source>“%1” is not an amount in %2.</source>
        <translation>„%1“ ist kein Betrag in %2.</translation>
    </message>
    <message>
        <source>Nothing remains to refund: provider evidence shows %1 already committed.</source>
        <translation>Es bleibt nichts zu erstatten: Laut Nachweis des Anbieters sind bereits %1 verbucht.</translation>
    </message>
    <message>
        <source>Write a note: why the customer is owed this total.</source>
        <translation>Schreiben Sie eine Notiz: warum dem Kunden diese Summe zusteht.</translation>
    </message>
    <message>
        <source>&lt;b&gt;What provider evidence says was committed&lt;/b&gt;</source>
        <translation>&lt;b&gt;Was laut Nachweis des Anbieters verbucht wurde&lt;/b&gt;</translation>
    </message>
    <message>
        <source>this action</source>
        <translation>diese Aktion</translation>
    </message>
    <message>
        <source>follow-up</source>
        <translation>Folgeaktion</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>unbekannt</translation>
    </message>
    <message>
        <source>Committed</source>
        <translation>Verbucht</translation>
    </message>
    <message>
        <source>refused: outcome unknown</source>
        <translation>abgewiesen: Ergebnis unbekannt</translation>
    </message>
    <message>
        <source>nothing (%1)</source>
        <translation>nichts (%1)</translation>
    </message>
    <message>
        <source>&lt;p style=&quot;font-size:large&quot;&gt;&lt;b&gt;Follow-up to %1 on %2&lt;/b&gt;&lt;/p&gt;</source>
        <translation>&lt;p style=&quot;font-size:large&quot;&gt;&lt;b&gt;Folgeaktion zu %1 auf %2&lt;/b&gt;&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;A follow-up refunds the difference between the total the customer should get and what the provider confirms was committed. It is a new action with its own approval and key.&lt;/p&gt;</source>
        <translation>&lt;p&gt;Eine Folgeaktion erstattet die Differenz zwischen der Summe, die der Kunde bekommen soll, und dem, was der Anbieter als verbucht bestätigt. Sie ist eine neue Aktion mit eigener Freigabe und eigenem Schlüssel.&lt;/p&gt;</translation>
    </message>
    <message>
        <source> (%1)</source>
        <translation> (%1)</translation>
    </message>
    <message>
        <source>&lt;p&gt;Refund &lt;code&gt;%1&lt;/code&gt; was accepted, then &lt;b&gt;%2&lt;/b&gt; at the provider%3: &lt;b&gt;the customer has not been refunded&lt;/b&gt;, so it counts as nothing committed. Proposing the full amount again makes a &lt;b&gt;new refund&lt;/b&gt; that needs &lt;b&gt;its own approval&lt;/b&gt; and is sent as a refund of its own; the failed refund itself is never re-sent.&lt;/p&gt;</source>
        <translation>&lt;p&gt;Die Erstattung &lt;code&gt;%1&lt;/code&gt; wurde angenommen und ist dann beim Anbieter &lt;b&gt;%2&lt;/b&gt;%3: &lt;b&gt;Der Kunde hat kein Geld zurückerhalten&lt;/b&gt;, sie zählt also als nichts Verbuchtes. Den vollen Betrag erneut vorzuschlagen ergibt eine &lt;b&gt;neue Erstattung&lt;/b&gt;, die &lt;b&gt;ihre eigene Freigabe&lt;/b&gt; braucht und als eigene Erstattung gesendet wird; die fehlgeschlagene Erstattung selbst wird nie erneut gesendet.&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;Creates a &lt;b&gt;new PENDING action&lt;/b&gt; refunding &lt;b&gt;%1&lt;/b&gt; (%2 desired − %3 committed) on %4, linked to this one. It needs its own approval and is sent as a refund of its own, never as a resend of this one; &lt;b&gt;nothing is sent&lt;/b&gt; until it is approved and claimed.&lt;/p&gt;</source>
        <translation>&lt;p&gt;Erstellt eine &lt;b&gt;neue ausstehende Aktion&lt;/b&gt;, die &lt;b&gt;%1&lt;/b&gt; erstattet (%2 gewünscht − %3 verbucht) auf %4, verknüpft mit dieser. Sie braucht ihre eigene Freigabe und wird als eigene Erstattung gesendet, nie als erneutes Senden dieser; &lt;b&gt;gesendet wird nichts&lt;/b&gt;, bis sie freigegeben und übernommen ist.&lt;/p&gt;</translation>
    </message>
</context>
<context>
    <name>cs::FollowUpPlan</name>
    <message>
        <source>rejected: nothing was refunded</source>
        <translation>abgelehnt: Es wurde nichts erstattet</translation>
    </message>
    <message>
        <source>outcome not known yet (%1)</source>
        <translation>Ergebnis noch nicht bekannt (%1)</translation>
    </message>
    <message>
        <source>recorded amount</source>
        <translation>gespeicherter Betrag</translation>
    </message>
    <message>
        <source>provider lookup #%1: %2 %3</source>
        <translation>Abfrage beim Anbieter #%1: %2 %3</translation>
    </message>
    <message>
        <source>attempt #%1 answered %2 (%3)</source>
        <translation>Versuch #%1 beantwortet mit %2 (%3)</translation>
    </message>
    <message>
        <source>recorded amount (completed)</source>
        <translation>gespeicherter Betrag (abgeschlossen)</translation>
    </message>
    <message>
        <source>The outcome of this action is not known yet (%1): a follow-up could refund the customer twice. Resolve it first.</source>
        <translation>Das Ergebnis dieser Aktion ist noch nicht bekannt (%1): Eine Folgeaktion könnte dem Kunden doppelt erstatten. Klären Sie es zuerst.</translation>
    </message>
    <message>
        <source>The outcome of follow-up %1 is not known yet (%2). Resolve it first.</source>
        <translation>Das Ergebnis der Folgeaktion %1 ist noch nicht bekannt (%2). Klären Sie es zuerst.</translation>
    </message>
    <message>
        <source>This action is itself a follow-up of %1: adjust the original action instead.</source>
        <translation>Diese Aktion ist selbst eine Folgeaktion zu %1: Korrigieren Sie stattdessen die ursprüngliche Aktion.</translation>
    </message>
</context>
<context>
    <name>cs::GroundTruthView</name>
    <message>
        <source>Ground truth</source>
        <translation>Tatsächlicher Stand</translation>
    </message>
    <message>
        <source>What the provider holds, next to what the ledger says.</source>
        <translation>Was der Anbieter hat, neben dem, was das Hauptbuch sagt.</translation>
    </message>
    <message>
        <source>Provider refunds next to the ledger</source>
        <translation>Erstattungen beim Anbieter neben dem Hauptbuch</translation>
    </message>
    <message>
        <source>Provider refund</source>
        <translation>Erstattung beim Anbieter</translation>
    </message>
    <message>
        <source>Charge</source>
        <translation>Zahlung</translation>
    </message>
    <message>
        <source>Amount</source>
        <translation>Betrag</translation>
    </message>
    <message>
        <source>Idempotency key</source>
        <translation>Idempotenzschlüssel</translation>
    </message>
    <message>
        <source>Action</source>
        <translation>Aktion</translation>
    </message>
    <message>
        <source>Created</source>
        <translation>Erstellt</translation>
    </message>
    <message>
        <source>Ledger state</source>
        <translation>Zustand im Hauptbuch</translation>
    </message>
    <message>
        <source>Ledger&apos;s refund</source>
        <translation>Erstattung laut Hauptbuch</translation>
    </message>
    <message>
        <source>Agrees?</source>
        <translation>Stimmt überein?</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>Aktualisieren</translation>
    </message>
    <message>
        <source>Refresh the ground truth</source>
        <translation>Den tatsächlichen Stand aktualisieren</translation>
    </message>
    <message>
        <source>paysim did not answer: %1</source>
        <translation>paysim hat nicht geantwortet: %1</translation>
    </message>
    <message>
        <source>No action claims this refund</source>
        <translation>Keine Aktion beansprucht diese Erstattung</translation>
    </message>
    <message>
        <source>Provider holds %1 refunds for one action</source>
        <translation>Der Anbieter hat %1 Erstattungen für eine Aktion</translation>
    </message>
    <message>
        <source>The ledger has no such action</source>
        <translation>Das Hauptbuch kennt diese Aktion nicht</translation>
    </message>
    <message>
        <source>Ledger says rejected, provider refunded</source>
        <translation>Hauptbuch sagt abgelehnt, Anbieter hat erstattet</translation>
    </message>
    <message>
        <source>Ledger names another refund</source>
        <translation>Hauptbuch nennt eine andere Erstattung</translation>
    </message>
    <message>
        <source>Agrees</source>
        <translation>Stimmt überein</translation>
    </message>
    <message>
        <source>Ledger does not know yet (%1)</source>
        <translation>Hauptbuch weiß es noch nicht (%1)</translation>
    </message>
    <message numerus="yes">
        <source>%n provider refund(s); the ledger agrees with each.</source>
        <translation>
            <numerusform>%n Erstattung beim Anbieter; das Hauptbuch stimmt damit überein.</numerusform>
            <numerusform>%n Erstattungen beim Anbieter; das Hauptbuch stimmt mit jeder überein.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n provider refund(s); %1 disagree with the ledger.</source>
        <translation>
            <numerusform>%n Erstattung beim Anbieter; %1 weicht vom Hauptbuch ab.</numerusform>
            <numerusform>%n Erstattungen beim Anbieter; %1 weichen vom Hauptbuch ab.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>cs::HistoryExportJob</name>
    <message>
        <source>no backend</source>
        <translation>kein Backend</translation>
    </message>
    <message>
        <source>%1 could not be read: %2</source>
        <translation>%1 konnte nicht gelesen werden: %2</translation>
    </message>
    <message>
        <source>the backend&apos;s answer for %1 could not be read: %2</source>
        <translation>die Antwort des Backends zu %1 konnte nicht gelesen werden: %2</translation>
    </message>
</context>
<context>
    <name>cs::LookupDialog</name>
    <message>
        <source>Look up at the provider</source>
        <translation>Beim Anbieter abfragen</translation>
    </message>
    <message>
        <source>Look up now</source>
        <translation>Jetzt abfragen</translation>
    </message>
    <message>
        <source>&lt;p style=&quot;font-size:large&quot;&gt;&lt;b&gt;Ask %1 what happened to this refund&lt;/b&gt;&lt;/p&gt;&lt;p&gt;The backend will %2 and record the answer as &lt;b&gt;lookup #%3&lt;/b&gt; (asked by you), whatever it is. A lookup only reads: it cannot refund anything. In CONFIRMATION_UNKNOWN a conclusive answer settles the state; a REQUIRES_REVIEW action stays for a reconciliation.&lt;/p&gt;</source>
        <translation>&lt;p style=&quot;font-size:large&quot;&gt;&lt;b&gt;%1 fragen, was mit dieser Erstattung geschehen ist&lt;/b&gt;&lt;/p&gt;&lt;p&gt;Das Backend wird %2 und die Antwort als &lt;b&gt;Abfrage #%3&lt;/b&gt; (von Ihnen gestellt) speichern, wie immer sie lautet. Eine Abfrage liest nur: Sie kann nichts erstatten. In CONFIRMATION_UNKNOWN klärt eine eindeutige Antwort den Zustand; eine REQUIRES_REVIEW-Aktion bleibt für einen Abgleich stehen.&lt;/p&gt;</translation>
    </message>
    <message>
        <source>the provider</source>
        <translation>den Anbieter</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;span style=&quot;color:%1; font-weight:600&quot;&gt;%2&lt;/span&gt;&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;span style=&quot;color:%1; font-weight:600&quot;&gt;%2&lt;/span&gt;&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;The action moved from %1 to &lt;b&gt;%2&lt;/b&gt;.&lt;/p&gt;</source>
        <translation>&lt;p&gt;Die Aktion wechselte von %1 zu &lt;b&gt;%2&lt;/b&gt;.&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;The action stays %1.&lt;/p&gt;</source>
        <translation>&lt;p&gt;Die Aktion bleibt im Zustand %1.&lt;/p&gt;</translation>
    </message>
    <message>
        <source>look through the refunds of this charge for the one Countersign made for this action</source>
        <translation>unter den Erstattungen dieser Zahlung die suchen, die Countersign für diese Aktion erstellt hat,</translation>
    </message>
    <message>
        <source>Lists the refunds of %1 and matches metadata[countersign_action_id] = %2.</source>
        <translation>Listet die Erstattungen von %1 auf und sucht metadata[countersign_action_id] = %2.</translation>
    </message>
    <message>
        <source>%1, or ask for the refund on record by its id if it is not listed</source>
        <translation>%1 oder die gespeicherte Erstattung über ihre ID abfragen, falls sie nicht aufgeführt ist,</translation>
    </message>
    <message>
        <source>Retrieves refund %1 if it is not listed.</source>
        <translation>Ruft Erstattung %1 ab, falls sie nicht aufgeführt ist.</translation>
    </message>
</context>
<context>
    <name>cs::LookupPurpose</name>
    <message>
        <source>the refund</source>
        <translation>die Erstattung</translation>
    </message>
    <message>
        <source>not known</source>
        <translation>unbekannt</translation>
    </message>
    <message>
        <source>Ask the provider again about refund %1 (%2 after it was accepted): the answer is kept as evidence; the review item stays open until a supervisor decides</source>
        <translation>Den Anbieter erneut nach Erstattung %1 fragen (nach der Annahme %2): Die Antwort wird als Beleg aufbewahrt; die Prüfung bleibt offen, bis ein Supervisor entscheidet</translation>
    </message>
    <message>
        <source>Ask the provider now whether refund %1 has settled (%2 so far): the answer moves its settlement, as a webhook or a scheduled check would</source>
        <translation>Den Anbieter jetzt fragen, ob Erstattung %1 abgewickelt ist (bisher %2): Die Antwort schreibt ihre Abwicklung fort, wie es ein Webhook oder eine geplante Prüfung täte</translation>
    </message>
    <message>
        <source>Ask the provider whether refund %1 still stands: it succeeded, and a succeeded refund can still fail later</source>
        <translation>Den Anbieter fragen, ob Erstattung %1 noch Bestand hat: Sie war erfolgreich, und eine erfolgreiche Erstattung kann später noch fehlschlagen</translation>
    </message>
    <message>
        <source>Ask the provider about refund %1 again: its status, %2, is final; the answer is only kept as evidence</source>
        <translation>Den Anbieter erneut nach Erstattung %1 fragen: Ihr Status %2 ist endgültig; die Antwort wird nur als Beleg aufbewahrt</translation>
    </message>
</context>
<context>
    <name>cs::LookupTableModel</name>
    <message>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>Zeit</translation>
    </message>
    <message>
        <source>Method</source>
        <translation>Methode</translation>
    </message>
    <message>
        <source>Asked by</source>
        <translation>Gefragt von</translation>
    </message>
    <message>
        <source>Result</source>
        <translation>Ergebnis</translation>
    </message>
    <message>
        <source>Provider object</source>
        <translation>Anbieterobjekt</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>Status</translation>
    </message>
    <message>
        <source>Amount</source>
        <translation>Betrag</translation>
    </message>
    <message>
        <source>HTTP</source>
        <translation>HTTP</translation>
    </message>
    <message>
        <source>list by metadata</source>
        <translation>Liste nach Metadaten</translation>
    </message>
    <message>
        <source>retrieve refund</source>
        <translation>Erstattung abrufen</translation>
    </message>
    <message>
        <source>events</source>
        <translation>Ereignisse</translation>
    </message>
    <message>
        <source>webhook</source>
        <translation>Webhook</translation>
    </message>
    <message>
        <source>none</source>
        <translation>keine</translation>
    </message>
    <message>
        <source>%1 look-ups failed (HTTP %2)</source>
        <translation>%1 Abfragen fehlgeschlagen (HTTP %2)</translation>
    </message>
    <message>
        <source>%1 look-ups failed (no answer)</source>
        <translation>%1 Abfragen fehlgeschlagen (keine Antwort)</translation>
    </message>
    <message>
        <source>Newest answer: %1</source>
        <translation>Neueste Antwort: %1</translation>
    </message>
</context>
<context>
    <name>cs::MainWindow</name>
    <message>
        <source>Countersign</source>
        <translation>Countersign</translation>
    </message>
    <message>
        <source>The backend does not accept the token (401). Check the connection profile.</source>
        <translation>Das Backend akzeptiert das Token nicht (401). Prüfen Sie das Verbindungsprofil.</translation>
    </message>
    <message>
        <source>&amp;Approve…</source>
        <translation>&amp;Freigeben…</translation>
    </message>
    <message>
        <source>Approve</source>
        <translation>Freigeben</translation>
    </message>
    <message>
        <source>Approve the selected action: mints its key; nothing is sent until the executor claims it</source>
        <translation>Die ausgewählte Aktion freigeben: erzeugt ihren Schlüssel; gesendet wird erst, wenn der Executor sie übernimmt</translation>
    </message>
    <message>
        <source>&amp;Reject…</source>
        <translation>&amp;Ablehnen…</translation>
    </message>
    <message>
        <source>Reject</source>
        <translation>Ablehnen</translation>
    </message>
    <message>
        <source>Reject the selected action with a reason: nothing is ever sent</source>
        <translation>Die ausgewählte Aktion mit einem Grund ablehnen: Es wird niemals etwas gesendet</translation>
    </message>
    <message>
        <source>&amp;Look up at provider…</source>
        <translation>Beim Anbieter a&amp;bfragen…</translation>
    </message>
    <message>
        <source>Look up</source>
        <translation>Abfragen</translation>
    </message>
    <message>
        <source>Ask the provider now what happened to this action</source>
        <translation>Den Anbieter jetzt fragen, was mit dieser Aktion geschehen ist</translation>
    </message>
    <message>
        <source>Re&amp;concile…</source>
        <translation>Abg&amp;leichen…</translation>
    </message>
    <message>
        <source>Reconcile</source>
        <translation>Abgleichen</translation>
    </message>
    <message>
        <source>Confirm what happened at the provider, with a lookup as evidence</source>
        <translation>Bestätigen, was beim Anbieter geschehen ist, mit einer Abfrage als Nachweis</translation>
    </message>
    <message>
        <source>&amp;Follow-up…</source>
        <translation>F&amp;olgeaktion…</translation>
    </message>
    <message>
        <source>Follow-up</source>
        <translation>Folgeaktion</translation>
    </message>
    <message>
        <source>Propose a new action for the remainder the provider evidence shows is still owed</source>
        <translation>Eine neue Aktion für den Rest vorschlagen, der laut Nachweis des Anbieters noch zusteht</translation>
    </message>
    <message>
        <source>&amp;Refresh</source>
        <translation>&amp;Aktualisieren</translation>
    </message>
    <message>
        <source>&amp;Find…</source>
        <translation>&amp;Suchen…</translation>
    </message>
    <message>
        <source>&amp;Connection profile…</source>
        <translation>&amp;Verbindungsprofil…</translation>
    </message>
    <message>
        <source>Approve &amp;selected…</source>
        <translation>Ausgewählte f&amp;reigeben…</translation>
    </message>
    <message>
        <source>Approve every selected PENDING action, each with its own approval and key</source>
        <translation>Jede ausgewählte PENDING-Aktion freigeben, jede mit eigener Freigabe und eigenem Schlüssel</translation>
    </message>
    <message>
        <source>Reject s&amp;elected…</source>
        <translation>Ausgewählte abl&amp;ehnen…</translation>
    </message>
    <message>
        <source>Reject every selected PENDING action with one reason and note</source>
        <translation>Jede ausgewählte PENDING-Aktion mit einem gemeinsamen Grund und einer Notiz ablehnen</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>&amp;Datei</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Beenden</translation>
    </message>
    <message>
        <source>&amp;Action</source>
        <translation>A&amp;ktion</translation>
    </message>
    <message>
        <source>E&amp;xecution</source>
        <translation>A&amp;usführung</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>&amp;Ansicht</translation>
    </message>
    <message>
        <source>Go to the &amp;queue</source>
        <translation>Zur &amp;Warteschlange</translation>
    </message>
    <message>
        <source>&amp;Next detail tab</source>
        <translation>&amp;Nächster Detailreiter</translation>
    </message>
    <message>
        <source>&amp;Settings</source>
        <translation>&amp;Einstellungen</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>&amp;Hilfe</translation>
    </message>
    <message>
        <source>&amp;Keyboard shortcuts</source>
        <translation>&amp;Tastenkürzel</translation>
    </message>
    <message>
        <source>Select several actions in the queue</source>
        <translation>Mehrere Aktionen in der Warteschlange auswählen</translation>
    </message>
    <message>
        <source>Approve the selected actions</source>
        <translation>Die ausgewählten Aktionen freigeben</translation>
    </message>
    <message>
        <source>Reject the selected actions</source>
        <translation>Die ausgewählten Aktionen ablehnen</translation>
    </message>
    <message>
        <source>Search the queue</source>
        <translation>Die Warteschlange durchsuchen</translation>
    </message>
    <message>
        <source>Move through the queue</source>
        <translation>Durch die Warteschlange bewegen</translation>
    </message>
    <message>
        <source>Go to the queue</source>
        <translation>Zur Warteschlange</translation>
    </message>
    <message>
        <source>Next detail tab</source>
        <translation>Nächster Detailreiter</translation>
    </message>
    <message>
        <source>Confirm a dialog</source>
        <translation>Einen Dialog bestätigen</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>Aktualisieren</translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>Tastenkürzel</translation>
    </message>
    <message>
        <source>&amp;About Countersign</source>
        <translation>&amp;Über Countersign</translation>
    </message>
    <message>
        <source>About Countersign</source>
        <translation>Über Countersign</translation>
    </message>
    <message>
        <source>&lt;b&gt;Countersign %1&lt;/b&gt;&lt;p&gt;Sign-off and review console for payment actions taken by AI agents. A timeout proves that a response was lost, not that the provider did nothing.&lt;/p&gt;</source>
        <translation>&lt;b&gt;Countersign %1&lt;/b&gt;&lt;p&gt;Freigabe- und Prüfkonsole für Zahlungsaktionen von KI-Agenten. Eine Zeitüberschreitung beweist, dass eine Antwort verloren ging, nicht dass der Anbieter nichts getan hat.&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Decisions</source>
        <translation>Entscheidungen</translation>
    </message>
    <message>
        <source>Decisions not confirmed yet</source>
        <translation>Entscheidungen noch nicht bestätigt</translation>
    </message>
    <message numerus="yes">
        <source>%n decision(s) have not been confirmed by the backend yet. Quitting stops resending them; whether the backend received them is then unknown until you look again. Quit anyway?</source>
        <translation>
            <numerusform>%n Entscheidung wurde vom Backend noch nicht bestätigt. Beim Beenden wird sie nicht mehr erneut gesendet; ob das Backend sie erhalten hat, ist dann unbekannt, bis Sie wieder nachsehen. Trotzdem beenden?</numerusform>
            <numerusform>%n Entscheidungen wurden vom Backend noch nicht bestätigt. Beim Beenden werden sie nicht mehr erneut gesendet; ob das Backend sie erhalten hat, ist dann unbekannt, bis Sie wieder nachsehen. Trotzdem beenden?</numerusform>
        </translation>
    </message>
    <message>
        <source>not signed in</source>
        <translation>nicht angemeldet</translation>
    </message>
    <message>
        <source>Loading %1…</source>
        <translation>%1 wird geladen…</translation>
    </message>
    <message>
        <source>Could not load %1: %2</source>
        <translation>%1 konnte nicht geladen werden: %2</translation>
    </message>
    <message>
        <source>Could not refresh %1: %2</source>
        <translation>%1 konnte nicht aktualisiert werden: %2</translation>
    </message>
    <message>
        <source>The backend&apos;s answer for %1 could not be read: %2</source>
        <translation>Die Antwort des Backends zu %1 konnte nicht gelesen werden: %2</translation>
    </message>
    <message>
        <source>%1 — select an action first</source>
        <translation>%1 — wählen Sie zuerst eine Aktion aus</translation>
    </message>
    <message>
        <source>%1 is not available: %2</source>
        <translation>%1 ist nicht verfügbar: %2</translation>
    </message>
    <message>
        <source>The backend answers again.</source>
        <translation>Das Backend antwortet wieder.</translation>
    </message>
    <message>
        <source>Backend: %1</source>
        <translation>Backend: %1</translation>
    </message>
    <message>
        <source>%1 · %2</source>
        <translation>%1 · %2</translation>
    </message>
    <message>
        <source>Signed in as %1, role %2</source>
        <translation>Angemeldet als %1, Rolle %2</translation>
    </message>
    <message>
        <source>● Offline</source>
        <translation>● Offline</translation>
    </message>
    <message>
        <source>● Live</source>
        <translation>● Live</translation>
    </message>
    <message>
        <source>○ Connecting…</source>
        <translation>○ Verbindung wird aufgebaut…</translation>
    </message>
    <message>
        <source>○ Reconnecting…</source>
        <translation>○ Verbindung wird wiederhergestellt…</translation>
    </message>
    <message>
        <source>○ Not live</source>
        <translation>○ Nicht live</translation>
    </message>
    <message>
        <source>Kept in the system keychain; if none answers, in a file only you can read.</source>
        <translation>Im Schlüsselbund des Systems gespeichert; antwortet keiner, in einer Datei, die nur Sie lesen können.</translation>
    </message>
    <message>
        <source>Kept in a file only you can read (this build has no keychain support).</source>
        <translation>In einer Datei gespeichert, die nur Sie lesen können (diese Version unterstützt keinen Schlüsselbund).</translation>
    </message>
    <message>
        <source>Connected as %1 (%2).</source>
        <translation>Verbunden als %1 (%2).</translation>
    </message>
    <message>
        <source>Select an action in the queue.</source>
        <translation>Wählen Sie eine Aktion in der Warteschlange aus.</translation>
    </message>
    <message>
        <source>Show &amp;charge…</source>
        <translation>&amp;Zahlung zeigen…</translation>
    </message>
    <message>
        <source>Everything on the selected action&apos;s charge: its actions, the provider&apos;s refunds, its budget</source>
        <translation>Alles zur Zahlung der ausgewählten Aktion: ihre Aktionen, die Erstattungen beim Anbieter, ihr Budget</translation>
    </message>
    <message>
        <source>Agents may not read a charge&apos;s view: it lists every requester&apos;s actions</source>
        <translation>Agenten dürfen die Zahlungsansicht nicht lesen: Sie listet die Aktionen aller Anfragenden auf</translation>
    </message>
    <message>
        <source>Show the selected action&apos;s charge</source>
        <translation>Die Zahlung der ausgewählten Aktion zeigen</translation>
    </message>
    <message>
        <source>Shift+↑ ↓, Ctrl+Space</source>
        <translation>Umschalt+↑ ↓, Strg+Leertaste</translation>
    </message>
    <message>
        <source>Ctrl+F</source>
        <translation>Strg+F</translation>
    </message>
    <message>
        <source>↑ ↓</source>
        <translation>↑ ↓</translation>
    </message>
    <message>
        <source>Ctrl+0</source>
        <translation>Strg+0</translation>
    </message>
    <message>
        <source>Ctrl+Tab</source>
        <translation>Strg+Tab</translation>
    </message>
    <message>
        <source>Ctrl+Enter</source>
        <translation>Strg+Eingabe</translation>
    </message>
    <message>
        <source>F5</source>
        <translation>F5</translation>
    </message>
    <message>
        <source>Close failed refund &amp;without re-sending…</source>
        <translation>Fehlgeschlagene Erstattung ohne erneutes Senden &amp;schließen…</translation>
    </message>
    <message>
        <source>Close failed refund</source>
        <translation>Fehlgeschlagene Erstattung schließen</translation>
    </message>
    <message>
        <source>Close the review of a refund that failed after it was accepted, with a note: nothing is re-sent</source>
        <translation>Die Prüfung einer nach der Annahme fehlgeschlagenen Erstattung mit einer Notiz schließen: Nichts wird erneut gesendet</translation>
    </message>
    <message>
        <source>Ctrl+1 … Ctrl+6</source>
        <translation>Strg+1 … Strg+6</translation>
    </message>
    <message>
        <source>Queue, Pending, Unknown, Review, All, Refund failed</source>
        <translation>Warteschlange, Ausstehend, Unbekannt, Prüfung, Alle, Erstattung fehlgeschlagen</translation>
    </message>
    <message>
        <source>Close &amp;discrepancy…</source>
        <translation>Abweic&amp;hung schließen…</translation>
    </message>
    <message>
        <source>Close discrepancy</source>
        <translation>Abweichung schließen</translation>
    </message>
    <message>
        <source>Close the discrepancy of an action the provider holds two refunds for, with a note: nothing is sent or undone</source>
        <translation>Die Abweichung einer Aktion, zu der der Anbieter zwei Erstattungen hält, mit einer Notiz schließen: Nichts wird gesendet oder rückgängig gemacht</translation>
    </message>
    <message>
        <source>%1 is not available: the backend does not answer, so what is shown may be out of date</source>
        <translation>%1 ist nicht verfügbar: Das Backend antwortet nicht, das Angezeigte kann also veraltet sein</translation>
    </message>
    <message>
        <source>No action in this view.</source>
        <translation>Keine Aktion in dieser Ansicht.</translation>
    </message>
    <message>
        <source>Select one or more actions in the queue first</source>
        <translation>Wählen Sie zuerst eine oder mehrere Aktionen in der Warteschlange aus</translation>
    </message>
    <message numerus="yes">
        <source>%1 (%n selected)</source>
        <translation>
            <numerusform>%1 (%n ausgewählt)</numerusform>
            <numerusform>%1 (%n ausgewählt)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 acts on one action: %n actions are selected (Approve selected or Reject selected decides them together)</source>
        <translation>
            <numerusform>%1 gilt einer Aktion: %n Aktion ist ausgewählt (Ausgewählte freigeben oder Ausgewählte ablehnen entscheidet sie zusammen)</numerusform>
            <numerusform>%1 gilt einer Aktion: %n Aktionen sind ausgewählt (Ausgewählte freigeben oder Ausgewählte ablehnen entscheidet sie zusammen)</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 — the action shown is not selected: press Space to select it</source>
        <translation>%1 — die angezeigte Aktion ist nicht ausgewählt: Leertaste wählt sie aus</translation>
    </message>
</context>
<context>
    <name>cs::NarrationPanel</name>
    <message>
        <source>Narration</source>
        <translation>Erläuterung</translation>
    </message>
    <message>
        <source>Choose a scenario in the Scenarios menu.</source>
        <translation>Wählen Sie ein Szenario im Menü „Szenarien“.</translation>
    </message>
    <message>
        <source>Scenario steps</source>
        <translation>Schritte des Szenarios</translation>
    </message>
    <message>
        <source>Next step</source>
        <translation>Nächster Schritt</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>Cancel the scenario</source>
        <translation>Das Szenario abbrechen</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>Schritt</translation>
    </message>
    <message>
        <source>Seen</source>
        <translation>Beobachtung</translation>
    </message>
    <message>
        <source>Problem</source>
        <translation>Problem</translation>
    </message>
    <message>
        <source>Cure</source>
        <translation>Abhilfe</translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation>Fazit</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>Action: %1</source>
        <translation>Aktion: %1</translation>
    </message>
    <message>
        <source>Your turn</source>
        <translation>Sie sind dran</translation>
    </message>
</context>
<context>
    <name>cs::OfflineBanner</name>
    <message>
        <source>Backend unreachable</source>
        <translation>Backend nicht erreichbar</translation>
    </message>
    <message>
        <source>Retry now</source>
        <translation>Jetzt erneut versuchen</translation>
    </message>
    <message>
        <source>&lt;b&gt;Offline — the backend at %1 is refused: %2&lt;/b&gt; (for %3 s). The console does not talk to a backend whose certificate it cannot verify; start it with &lt;code&gt;--ca-file FILE&lt;/code&gt; for a private CA, or fix the backend&apos;s certificate. Open dialogs keep what you typed.</source>
        <translation>&lt;b&gt;Offline — das Backend unter %1 wird abgewiesen: %2&lt;/b&gt; (seit %3 s). Die Konsole spricht mit keinem Backend, dessen Zertifikat sie nicht prüfen kann; starten Sie sie mit &lt;code&gt;--ca-file FILE&lt;/code&gt; für eine private CA oder korrigieren Sie das Zertifikat des Backends. Offene Dialoge behalten Ihre Eingaben.</translation>
    </message>
    <message numerus="yes">
        <source> %n decision(s) will be sent again as the same request as soon as it answers, so none can apply twice.</source>
        <translation>
            <numerusform> %n Entscheidung wird als dieselbe Anfrage erneut gesendet, sobald es antwortet, sie kann also nicht zweimal wirken.</numerusform>
            <numerusform> %n Entscheidungen werden als dieselbe Anfrage erneut gesendet, sobald es antwortet, keine kann also zweimal wirken.</numerusform>
        </translation>
    </message>
    <message>
        <source>Restart the backend</source>
        <translation>Backend neu starten</translation>
    </message>
    <message>
        <source>&lt;b&gt;Offline — the demo&apos;s own backend has stopped or does not answer&lt;/b&gt; (for %1 s). It does not come back by itself: restart it to go on (its ledger is kept). The queue and details shown may be out of date; decisions are off until it answers. Open dialogs keep what you typed.</source>
        <translation>&lt;b&gt;Offline — das eigene Backend der Demo ist beendet oder antwortet nicht&lt;/b&gt; (seit %1 s). Es kommt nicht von selbst zurück: Starten Sie es neu, um weiterzumachen (sein Hauptbuch bleibt erhalten). Warteschlange und Details können veraltet sein; Entscheidungen sind aus, bis es antwortet. Offene Dialoge behalten Ihre Eingaben.</translation>
    </message>
    <message>
        <source>&lt;b&gt;Offline — the backend at %1 does not answer&lt;/b&gt; (for %2 s). Reconnecting automatically; the queue and details shown may be out of date, and decisions are off until it answers. Open dialogs keep what you typed.</source>
        <translation>&lt;b&gt;Offline — das Backend unter %1 antwortet nicht&lt;/b&gt; (seit %2 s). Die Verbindung wird automatisch wiederhergestellt; Warteschlange und Details können veraltet sein, und Entscheidungen sind aus, bis es antwortet. Offene Dialoge behalten Ihre Eingaben.</translation>
    </message>
</context>
<context>
    <name>cs::PauseDialog</name>
    <message>
        <source>Pause execution</source>
        <translation>Ausführung pausieren</translation>
    </message>
    <message>
        <source>&lt;b&gt;Pause execution.&lt;/b&gt; While the pause is in force the executor claims nothing it covers: approved actions stay PENDING with their approval and key and are sent once it is resumed. What is already being sent finishes, the reconciler keeps reconciling, proposals and approvals go on. Every console sees the pause; the audit log records who and why.</source>
        <translation>&lt;b&gt;Ausführung pausieren.&lt;/b&gt; Solange die Pause gilt, übernimmt der Executor nichts, was sie abdeckt: Freigegebene Aktionen bleiben PENDING mit ihrer Freigabe und ihrem Schlüssel und werden gesendet, sobald fortgesetzt wird. Was schon gesendet wird, wird beendet, der Reconciler gleicht weiter ab, Vorschläge und Freigaben gehen weiter. Jede Konsole sieht die Pause; das Prüfprotokoll speichert, wer sie warum eingelegt hat.</translation>
    </message>
    <message>
        <source>&amp;Everything</source>
        <translation>&amp;Alles</translation>
    </message>
    <message>
        <source>One &amp;agent&apos;s actions</source>
        <translation>Aktionen &amp;eines Agenten</translation>
    </message>
    <message>
        <source>One provider a&amp;ccount&apos;s actions</source>
        <translation>Aktionen eines Anbieter&amp;kontos</translation>
    </message>
    <message>
        <source>&amp;Reason (required; every console and the audit log show it):</source>
        <translation>&amp;Grund (Pflicht; jede Konsole und das Prüfprotokoll zeigen ihn):</translation>
    </message>
    <message>
        <source>Reason for the pause</source>
        <translation>Grund für die Pause</translation>
    </message>
    <message>
        <source>(no name: everything is paused)</source>
        <translation>(kein Name: Alles wird pausiert)</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>The agent&apos;s name, as in the queue&apos;s Requested by (agent-7)</source>
        <translation>Der Name des Agenten, wie unter „Angefordert von“ in der Warteschlange (agent-7)</translation>
    </message>
    <message>
        <source>Agent</source>
        <translation>Agent</translation>
    </message>
    <message>
        <source>The provider account (acct_…)</source>
        <translation>Das Anbieterkonto (acct_…)</translation>
    </message>
    <message>
        <source>Provider account</source>
        <translation>Anbieterkonto</translation>
    </message>
    <message>
        <source>Name the agent whose actions are to be paused.</source>
        <translation>Nennen Sie den Agenten, dessen Aktionen pausiert werden sollen.</translation>
    </message>
    <message>
        <source>Name the provider account whose actions are to be paused.</source>
        <translation>Nennen Sie das Anbieterkonto, dessen Aktionen pausiert werden sollen.</translation>
    </message>
    <message>
        <source>Say why execution is paused: every console and the audit log show it.</source>
        <translation>Sagen Sie, warum die Ausführung pausiert wird: Jede Konsole und das Prüfprotokoll zeigen es.</translation>
    </message>
    <message>
        <source>The reason is %1 characters long; at most %2.</source>
        <translation>Der Grund ist %1 Zeichen lang; höchstens %2 sind erlaubt.</translation>
    </message>
</context>
<context>
    <name>cs::PayloadDiffModel</name>
    <message>
        <source>%1 changed from %2 to %3</source>
        <translation>%1 geändert von %2 zu %3</translation>
    </message>
    <message>
        <source>(absent)</source>
        <translation>(fehlt)</translation>
    </message>
    <message>
        <source>Field</source>
        <translation>Feld</translation>
    </message>
    <message>
        <source>Stored (what was proposed first)</source>
        <translation>Gespeichert (zuerst vorgeschlagen)</translation>
    </message>
    <message>
        <source>Conflicting resubmission</source>
        <translation>Abweichende erneute Einreichung</translation>
    </message>
</context>
<context>
    <name>cs::PayloadDiffWidget</name>
    <message>
        <source>Conflicting resubmission</source>
        <translation>Abweichende erneute Einreichung</translation>
    </message>
    <message>
        <source>Stored and conflicting payload, side by side</source>
        <translation>Gespeicherte und abweichende Nutzdaten nebeneinander</translation>
    </message>
    <message>
        <source>The stored action is unchanged: nothing is sent for a conflicting payload. If the customer is owed a different total, confirm what happened and propose a follow-up for the remainder.</source>
        <translation>Die gespeicherte Aktion ist unverändert: Für abweichende Nutzdaten wird nichts gesendet. Steht dem Kunden eine andere Summe zu, bestätigen Sie, was geschehen ist, und schlagen Sie eine Folgeaktion für den Rest vor.</translation>
    </message>
    <message>
        <source>#%1 by %2 at %3</source>
        <translation>#%1 von %2 um %3</translation>
    </message>
    <message>
        <source>No changed resubmission was caught for this action.</source>
        <translation>Für diese Aktion wurde keine geänderte erneute Einreichung abgefangen.</translation>
    </message>
    <message numerus="yes">
        <source>&lt;b&gt;Changed resubmission #%1&lt;/b&gt; by %2 at %3, under the same client reference. %n field(s) differ: %4.</source>
        <translation>
            <numerusform>&lt;b&gt;Geänderte erneute Einreichung #%1&lt;/b&gt; von %2 um %3, unter derselben Client-Referenz. %n Feld weicht ab: %4.</numerusform>
            <numerusform>&lt;b&gt;Geänderte erneute Einreichung #%1&lt;/b&gt; von %2 um %3, unter derselben Client-Referenz. %n Felder weichen ab: %4.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>cs::QueueItemDelegate</name>
    <message>
        <source>dup</source>
        <translation>Dup.</translation>
    </message>
    <message>
        <source>dup %1</source>
        <translation>Dup. %1</translation>
    </message>
    <message>
        <source>settling</source>
        <translation>in Abwicklung</translation>
    </message>
    <message>
        <source>refund failed</source>
        <translation>Erstattung fehlgeschlagen</translation>
    </message>
    <message>
        <source>refund canceled</source>
        <translation>Erstattung storniert</translation>
    </message>
</context>
<context>
    <name>cs::QueueView</name>
    <message>
        <source>Queue</source>
        <translation>Warteschlange</translation>
    </message>
    <message>
        <source>Pending</source>
        <translation>Ausstehend</translation>
    </message>
    <message>
        <source>Unknown</source>
        <translation>Unbekannt</translation>
    </message>
    <message>
        <source>Review</source>
        <translation>Prüfung</translation>
    </message>
    <message>
        <source>All</source>
        <translation>Alle</translation>
    </message>
    <message>
        <source>Show %1</source>
        <translation>%1 anzeigen</translation>
    </message>
    <message>
        <source>Confirmation unknown: a request may have reached the provider (Ctrl+3)</source>
        <translation>Bestätigung unbekannt: Eine Anfrage hat den Anbieter vielleicht erreicht (Strg+3)</translation>
    </message>
    <message>
        <source>Requires review: a supervisor must decide with evidence (Ctrl+4)</source>
        <translation>Prüfung nötig: Ein Supervisor muss mit Nachweis entscheiden (Strg+4)</translation>
    </message>
    <message>
        <source>Every action in every state (Ctrl+5)</source>
        <translation>Jede Aktion in jedem Zustand (Strg+5)</translation>
    </message>
    <message>
        <source>Search the queue</source>
        <translation>Die Warteschlange durchsuchen</translation>
    </message>
    <message>
        <source>Action queue</source>
        <translation>Aktionswarteschlange</translation>
    </message>
    <message>
        <source>Retry</source>
        <translation>Erneut versuchen</translation>
    </message>
    <message numerus="yes">
        <source>%n action(s)</source>
        <translation>
            <numerusform>%n Aktion</numerusform>
            <numerusform>%n Aktionen</numerusform>
        </translation>
    </message>
    <message>
        <source>Could not load: %1</source>
        <translation>Konnte nicht geladen werden: %1</translation>
    </message>
    <message>
        <source>Loading…</source>
        <translation>Wird geladen…</translation>
    </message>
    <message>
        <source>%1 shown · loading more…</source>
        <translation>%1 angezeigt · weitere werden geladen…</translation>
    </message>
    <message>
        <source>Nothing here.</source>
        <translation>Hier ist nichts.</translation>
    </message>
    <message>
        <source>No action matches “%1”.</source>
        <translation>Keine Aktion passt zu „%1“.</translation>
    </message>
    <message>
        <source>%1 shown · scroll for more</source>
        <translation>%1 angezeigt · für weitere blättern</translation>
    </message>
    <message>
        <source>%1 shown · all loaded</source>
        <translation>%1 angezeigt · alle geladen</translation>
    </message>
    <message>
        <source>Refund failed</source>
        <translation>Erstattung fehlgeschlagen</translation>
    </message>
    <message>
        <source>Refunds the provider accepted that then failed or were canceled: the customer has not been refunded. They stay COMPLETED; a supervisor decides whether to propose them again (Ctrl+6)</source>
        <translation>Erstattungen, die der Anbieter angenommen hat und die dann fehlgeschlagen sind oder storniert wurden: Der Kunde hat kein Geld zurückerhalten. Sie bleiben COMPLETED; ein Supervisor entscheidet, ob sie erneut vorgeschlagen werden (Strg+6)</translation>
    </message>
    <message>
        <source>Two refunds</source>
        <translation>Zwei Erstattungen</translation>
    </message>
    <message>
        <source>Actions the provider holds two refunds for (or a refund that contradicts them): money may have gone out twice. They keep their state; a supervisor checks and closes each with a note (Ctrl+7)</source>
        <translation>Aktionen, zu denen der Anbieter zwei Erstattungen hält (oder eine, die ihnen widerspricht): Womöglich ist zweimal Geld geflossen. Sie behalten ihren Zustand; ein Supervisor prüft jede und schließt sie mit einer Notiz (Strg+7)</translation>
    </message>
    <message>
        <source>What awaits a decision: pending approval, confirmation unknown and requires review (Ctrl+1)</source>
        <translation>Was auf eine Entscheidung wartet: Freigabe ausstehend, Bestätigung unbekannt und Prüfung erforderlich (Strg+1)</translation>
    </message>
    <message>
        <source>Awaiting approval (approved ones waiting for the executor are under All) (Ctrl+2)</source>
        <translation>Wartet auf Freigabe (freigegebene, die auf die Ausführung warten, stehen unter Alle) (Strg+2)</translation>
    </message>
    <message>
        <source>Search order, charge, amount, agent, action id  (Ctrl+F)</source>
        <translation>Bestellung, Zahlung, Betrag, Agent, Aktions-ID suchen  (Strg+F)</translation>
    </message>
    <message>
        <source>That action does not exist or you may not see it.</source>
        <translation>Diese Aktion gibt es nicht, oder Sie dürfen sie nicht sehen.</translation>
    </message>
    <message numerus="yes">
        <source>%n new</source>
        <translation>
            <numerusform>%n neue</numerusform>
            <numerusform>%n neue</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n action(s) arrived out of view; click to show them</source>
        <translation>
            <numerusform>%n Aktion kam außerhalb der Ansicht an; klicken, um sie zu zeigen</numerusform>
            <numerusform>%n Aktionen kamen außerhalb der Ansicht an; klicken, um sie zu zeigen</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n new action(s) out of view</source>
        <translation>
            <numerusform>%n neue Aktion außerhalb der Ansicht</numerusform>
            <numerusform>%n neue Aktionen außerhalb der Ansicht</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>cs::Quorum</name>
    <message>
        <source>%1 of %2 approvals</source>
        <translation>%1 von %2 Freigaben</translation>
    </message>
    <message>
        <source>%1 — approved by %2</source>
        <translation>%1 — freigegeben von %2</translation>
    </message>
</context>
<context>
    <name>cs::ReconcileDialog</name>
    <message>
        <source>Confirm a reconciliation</source>
        <translation>Einen Abgleich bestätigen</translation>
    </message>
    <message>
        <source>&lt;b&gt;What happened at the provider?&lt;/b&gt;</source>
        <translation>&lt;b&gt;Was ist beim Anbieter geschehen?&lt;/b&gt;</translation>
    </message>
    <message>
        <source>&amp;Committed — the refund exists</source>
        <translation>&amp;Verbucht — die Erstattung existiert</translation>
    </message>
    <message>
        <source>&amp;Not committed — no refund exists</source>
        <translation>&amp;Nicht verbucht — es existiert keine Erstattung</translation>
    </message>
    <message>
        <source>&lt;b&gt;&amp;Evidence&lt;/b&gt; — the provider lookup that shows it:</source>
        <translation>&lt;b&gt;Nach&amp;weis&lt;/b&gt; — die Abfrage beim Anbieter, die es zeigt:</translation>
    </message>
    <message>
        <source>Look up now</source>
        <translation>Jetzt abfragen</translation>
    </message>
    <message>
        <source>Ask the provider again; the answer appears in this list</source>
        <translation>Den Anbieter erneut fragen; die Antwort erscheint in dieser Liste</translation>
    </message>
    <message>
        <source>Evidence lookup</source>
        <translation>Abfrage als Nachweis</translation>
    </message>
    <message>
        <source>N&amp;ote (required):</source>
        <translation>N&amp;otiz (Pflicht):</translation>
    </message>
    <message>
        <source>Reconciliation note</source>
        <translation>Notiz zum Abgleich</translation>
    </message>
    <message>
        <source>Confirm reconciliation</source>
        <translation>Abgleich bestätigen</translation>
    </message>
    <message>
        <source>Looking up…</source>
        <translation>Wird abgefragt…</translation>
    </message>
    <message>
        <source>Choose the lookup that is the evidence.</source>
        <translation>Wählen Sie die Abfrage, die der Nachweis ist.</translation>
    </message>
    <message>
        <source>Lookup #%1 does not show that no refund exists: “not committed” needs a NOT_FOUND lookup, or a FOUND one with status failed or canceled.</source>
        <translation>Abfrage #%1 zeigt nicht, dass keine Erstattung existiert: „nicht verbucht“ braucht eine NOT_FOUND-Abfrage oder eine FOUND-Abfrage mit Status failed oder canceled.</translation>
    </message>
    <message>
        <source>Lookup #%1 was taken before the last attempt started, so it cannot show that attempt did not commit. Look up again.</source>
        <translation>Abfrage #%1 wurde vor Beginn des letzten Versuchs gestellt und kann daher nicht zeigen, dass dieser Versuch nicht verbucht wurde. Fragen Sie erneut ab.</translation>
    </message>
    <message>
        <source>There is no provider lookup yet. Look up the provider first: a reconciliation needs evidence.</source>
        <translation>Es gibt noch keine Abfrage beim Anbieter. Fragen Sie zuerst beim Anbieter ab: Ein Abgleich braucht einen Nachweis.</translation>
    </message>
    <message>
        <source>Choose what happened: committed or not committed.</source>
        <translation>Wählen Sie, was geschehen ist: verbucht oder nicht verbucht.</translation>
    </message>
    <message>
        <source>Write a note: what the evidence shows.</source>
        <translation>Schreiben Sie eine Notiz: was der Nachweis zeigt.</translation>
    </message>
    <message>
        <source>&lt;p style=&quot;font-size:large&quot;&gt;&lt;b&gt;Reconcile %1 on %2&lt;/b&gt;&lt;/p&gt;</source>
        <translation>&lt;p style=&quot;font-size:large&quot;&gt;&lt;b&gt;%1 auf %2 abgleichen&lt;/b&gt;&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;Why it needs review: %1&lt;/p&gt;</source>
        <translation>&lt;p&gt;Warum sie geprüft werden muss: %1&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;Confirming records &lt;b&gt;%1&lt;/b&gt; on the evidence of lookup #%2 (%3) and moves the action from REQUIRES_REVIEW to &lt;b&gt;%4&lt;/b&gt;. %5&lt;/p&gt;</source>
        <translation>&lt;p&gt;Die Bestätigung speichert &lt;b&gt;%1&lt;/b&gt; mit Abfrage #%2 (%3) als Nachweis und bringt die Aktion von REQUIRES_REVIEW nach &lt;b&gt;%4&lt;/b&gt;. %5&lt;/p&gt;</translation>
    </message>
    <message>
        <source>committed</source>
        <translation>verbucht</translation>
    </message>
    <message>
        <source>not committed</source>
        <translation>nicht verbucht</translation>
    </message>
    <message>
        <source>Nothing is sent.</source>
        <translation>Es wird nichts gesendet.</translation>
    </message>
    <message>
        <source>Nothing is sent; a follow-up can then propose a new refund if one is owed.</source>
        <translation>Es wird nichts gesendet; eine Folgeaktion kann danach eine neue Erstattung vorschlagen, falls eine zusteht.</translation>
    </message>
    <message>
        <source>&lt;p&gt;Choose the outcome and the lookup that proves it. The action moves from REQUIRES_REVIEW to COMPLETED (committed) or REJECTED (not committed); nothing is sent to the provider.&lt;/p&gt;</source>
        <translation>&lt;p&gt;Wählen Sie das Ergebnis und die Abfrage, die es belegt. Die Aktion geht von REQUIRES_REVIEW nach COMPLETED (verbucht) oder REJECTED (nicht verbucht) über; es wird nichts an den Anbieter gesendet.&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Lookup #%1 does not show a committed refund: “committed” needs a FOUND lookup with status succeeded or pending.</source>
        <translation>Abfrage #%1 zeigt keine verbuchte Erstattung: „verbucht“ braucht eine FOUND-Abfrage mit Status succeeded oder pending.</translation>
    </message>
</context>
<context>
    <name>cs::ReconciliationTableModel</name>
    <message>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>Zeit</translation>
    </message>
    <message>
        <source>Decided by</source>
        <translation>Entschieden von</translation>
    </message>
    <message>
        <source>Outcome</source>
        <translation>Ergebnis</translation>
    </message>
    <message>
        <source>Evidence</source>
        <translation>Nachweise</translation>
    </message>
    <message>
        <source>Note</source>
        <translation>Notiz</translation>
    </message>
    <message>
        <source>committed</source>
        <translation>verbucht</translation>
    </message>
    <message>
        <source>not committed</source>
        <translation>nicht verbucht</translation>
    </message>
    <message>
        <source>lookup #%1</source>
        <translation>Abfrage #%1</translation>
    </message>
</context>
<context>
    <name>cs::RejectDialog</name>
    <message>
        <source>Reject refund</source>
        <translation>Erstattung ablehnen</translation>
    </message>
    <message>
        <source>&amp;Reason (required, the agent sees it):</source>
        <translation>&amp;Grund (Pflicht, der Agent sieht ihn):</translation>
    </message>
    <message>
        <source>Rejection reason</source>
        <translation>Ablehnungsgrund</translation>
    </message>
    <message>
        <source>&amp;Note (required for Other, recorded with the rejection):</source>
        <translation>&amp;Notiz (Pflicht bei „Sonstiges“, wird mit der Ablehnung gespeichert):</translation>
    </message>
    <message>
        <source>Rejection note</source>
        <translation>Ablehnungsnotiz</translation>
    </message>
    <message>
        <source>Reject</source>
        <translation>Ablehnen</translation>
    </message>
    <message>
        <source>Choose a reason…</source>
        <translation>Grund wählen…</translation>
    </message>
    <message>
        <source>Other (say why in the note)</source>
        <translation>Sonstiges (Begründung in der Notiz)</translation>
    </message>
    <message>
        <source>Choose the reason for the rejection.</source>
        <translation>Wählen Sie den Grund für die Ablehnung.</translation>
    </message>
    <message>
        <source>Write a note saying why: the reason is Other.</source>
        <translation>Schreiben Sie eine Begründung in die Notiz: Der Grund ist „Sonstiges“.</translation>
    </message>
    <message>
        <source>&lt;p style=&quot;font-size:large&quot;&gt;&lt;b&gt;Reject the refund of %1 on %2&lt;/b&gt;&lt;/p&gt;&lt;p&gt;Requested by %3%4. The action becomes &lt;b&gt;REJECTED&lt;/b&gt;: nothing is ever sent to the provider for it, and it cannot be approved later. If a refund is still owed, a new proposal is needed.&lt;/p&gt;</source>
        <translation>&lt;p style=&quot;font-size:large&quot;&gt;&lt;b&gt;Die Erstattung von %1 auf %2 ablehnen&lt;/b&gt;&lt;/p&gt;&lt;p&gt;Angefordert von %3%4. Die Aktion wird &lt;b&gt;REJECTED&lt;/b&gt;: Für sie wird niemals etwas an den Anbieter gesendet, und sie kann später nicht freigegeben werden. Steht noch eine Erstattung zu, ist ein neuer Vorschlag nötig.&lt;/p&gt;</translation>
    </message>
    <message>
        <source> for order %1</source>
        <translation> für Bestellung %1</translation>
    </message>
</context>
<context>
    <name>cs::RelatedActionModel</name>
    <message>
        <source>Relation</source>
        <translation>Beziehung</translation>
    </message>
    <message>
        <source>Action</source>
        <translation>Aktion</translation>
    </message>
    <message>
        <source>State</source>
        <translation>Zustand</translation>
    </message>
    <message>
        <source>Amount</source>
        <translation>Betrag</translation>
    </message>
    <message>
        <source>Proposed</source>
        <translation>Vorgeschlagen</translation>
    </message>
    <message>
        <source>adjusts (parent)</source>
        <translation>korrigiert (übergeordnet)</translation>
    </message>
    <message>
        <source>follow-up</source>
        <translation>Folgeaktion</translation>
    </message>
    <message>
        <source>possible duplicate</source>
        <translation>mögliches Duplikat</translation>
    </message>
</context>
<context>
    <name>cs::RequesterRecord</name>
    <message>
        <source>no proposals</source>
        <translation>keine Vorschläge</translation>
    </message>
    <message>
        <source>1 refund</source>
        <translation>1 Erstattung</translation>
    </message>
    <message>
        <source>%1 refunds</source>
        <translation>%1 Erstattungen</translation>
    </message>
    <message>
        <source>%1, %2 · %3 rejected · %4 sent to review</source>
        <translation>%1, %2 · %3 abgelehnt · %4 zur Prüfung geschickt</translation>
    </message>
</context>
<context>
    <name>cs::ResumeDialog</name>
    <message>
        <source>Resume execution</source>
        <translation>Ausführung fortsetzen</translation>
    </message>
    <message>
        <source>&lt;b&gt;Resume execution.&lt;/b&gt; Once no pause covers them, approved actions are claimed again, oldest first. The pause is kept in the ledger with who resumed it and your note.</source>
        <translation>&lt;b&gt;Ausführung fortsetzen.&lt;/b&gt; Sobald keine Pause sie mehr abdeckt, werden freigegebene Aktionen wieder übernommen, die älteste zuerst. Die Pause bleibt im Hauptbuch, mit dem Namen dessen, der fortgesetzt hat, und Ihrer Notiz.</translation>
    </message>
    <message>
        <source>&amp;Pause to resume:</source>
        <translation>&amp;Fortzusetzende Pause:</translation>
    </message>
    <message>
        <source>Pauses in force</source>
        <translation>Geltende Pausen</translation>
    </message>
    <message>
        <source>&amp;Note (optional):</source>
        <translation>&amp;Notiz (optional):</translation>
    </message>
    <message>
        <source>Note on resuming</source>
        <translation>Notiz zum Fortsetzen</translation>
    </message>
    <message>
        <source>%1 — by %2, %3: %4</source>
        <translation>%1 — von %2, %3: %4</translation>
    </message>
    <message>
        <source>Nothing is paused now.</source>
        <translation>Derzeit ist nichts pausiert.</translation>
    </message>
    <message>
        <source>Choose the pause to resume.</source>
        <translation>Wählen Sie die fortzusetzende Pause.</translation>
    </message>
    <message>
        <source>The note is %1 characters long; at most %2.</source>
        <translation>Die Notiz ist %1 Zeichen lang; höchstens %2 sind erlaubt.</translation>
    </message>
</context>
<context>
    <name>cs::ReviewExplanation</name>
    <message>
        <source>no HTTP answer</source>
        <translation>keine HTTP-Antwort</translation>
    </message>
    <message>
        <source>%1 refused the refund: its key had already been used for a different request, so nothing more is sent with it.</source>
        <translation>%1 hat die Erstattung abgelehnt: Ihr Schlüssel wurde bereits für eine andere Anfrage verwendet, daher wird damit nichts mehr gesendet.</translation>
    </message>
    <message>
        <source>%1 refused Countersign&apos;s credentials (HTTP %2): the refund was not made. Fix the credentials, then decide.</source>
        <translation>%1 hat die Zugangsdaten von Countersign abgelehnt (HTTP %2): Die Erstattung wurde nicht ausgeführt. Korrigieren Sie die Zugangsdaten und entscheiden Sie dann.</translation>
    </message>
    <message>
        <source>%1 holds %2 refunds for this action, where there should be one.</source>
        <translation>%1 hat %2 Erstattungen zu dieser Aktion, obwohl es nur eine geben sollte.</translation>
    </message>
    <message>
        <source>%1 holds a refund for this action that does not match it: its amount, currency or charge differs.</source>
        <translation>%1 hat eine Erstattung zu dieser Aktion, die nicht zu ihr passt: Betrag, Währung oder Zahlung weichen ab.</translation>
    </message>
    <message>
        <source>%1 holds a refund for this action with status %2, which shows neither outcome.</source>
        <translation>%1 hat eine Erstattung zu dieser Aktion mit Status %2, der keines der beiden Ergebnisse zeigt.</translation>
    </message>
    <message>
        <source>%1 resubmitted this refund with different details; the refund as first proposed is unchanged.</source>
        <translation>%1 hat diese Erstattung mit geänderten Angaben erneut eingereicht; die ursprünglich vorgeschlagene Erstattung bleibt unverändert.</translation>
    </message>
    <message>
        <source>%1 said the charge was already refunded, but none of its refunds carries this action&apos;s id: it may have been refunded outside Countersign.</source>
        <translation>%1 meldete, die Zahlung sei bereits erstattet, aber keine ihrer Erstattungen trägt die ID dieser Aktion: Sie wurde womöglich außerhalb von Countersign erstattet.</translation>
    </message>
    <message>
        <source>%1 shows no refund for this action, and the time for a safe retry ended at %2: sending again could refund twice.</source>
        <translation>%1 zeigt keine Erstattung zu dieser Aktion, und die Frist für eine sichere Wiederholung endete um %2: Ein erneutes Senden könnte doppelt erstatten.</translation>
    </message>
    <message>
        <source>%1 shows no refund for this action, and retries with the same key stayed inconclusive.</source>
        <translation>%1 zeigt keine Erstattung zu dieser Aktion, und Wiederholungen mit demselben Schlüssel blieben ergebnislos.</translation>
    </message>
    <message>
        <source>%1 is more than is left to refund on this charge, so nothing was sent.</source>
        <translation>%1 ist mehr, als auf dieser Zahlung noch erstattet werden kann, daher wurde nichts gesendet.</translation>
    </message>
    <message>
        <source>The refund on record no longer matches what was approved, so nothing was sent.</source>
        <translation>Die gespeicherte Erstattung entspricht nicht mehr der freigegebenen, daher wurde nichts gesendet.</translation>
    </message>
    <message>
        <source>Countersign stopped this refund before sending it; nothing was sent.</source>
        <translation>Countersign hat diese Erstattung vor dem Senden angehalten; es wurde nichts gesendet.</translation>
    </message>
    <message>
        <source>Since then, look-up #%1 found no refund for this action.</source>
        <translation>Seitdem hat Abfrage #%1 keine Erstattung zu dieser Aktion gefunden.</translation>
    </message>
    <message>
        <source>Since then, look-up #%1 found a refund of %2 (%3).</source>
        <translation>Seitdem hat Abfrage #%1 eine Erstattung über %2 gefunden (%3).</translation>
    </message>
    <message>
        <source>The server&apos;s reason: %1</source>
        <translation>Grund laut Server: %1</translation>
    </message>
    <message>
        <source>The provider&apos;s answer to look-up #%1 (%2): %3</source>
        <translation>Antwort des Anbieters auf Abfrage #%1 (%2): %3</translation>
    </message>
    <message>
        <source>The provider&apos;s answer to attempt %1 (%2): %3</source>
        <translation>Antwort des Anbieters auf Versuch %1 (%2): %3</translation>
    </message>
    <message>
        <source>The provider</source>
        <translation>Der Anbieter</translation>
    </message>
    <message>
        <source>Countersign stopped this refund for a person to decide.</source>
        <translation>Countersign hat diese Erstattung angehalten, damit ein Mensch entscheidet.</translation>
    </message>
    <message>
        <source>Found: %1 holds a refund of %2.</source>
        <translation>Gefunden: %1 hat eine Erstattung über %2.</translation>
    </message>
    <message>
        <source>Found: %1 holds a refund of %2, %3.</source>
        <translation>Gefunden: %1 hat eine Erstattung über %2, %3.</translation>
    </message>
    <message>
        <source>Not found: %1 holds no refund for this action.</source>
        <translation>Nicht gefunden: %1 hat keine Erstattung zu dieser Aktion.</translation>
    </message>
    <message>
        <source>%1 did not answer (HTTP %2).</source>
        <translation>%1 hat nicht geantwortet (HTTP %2).</translation>
    </message>
    <message>
        <source>%1 did not answer.</source>
        <translation>%1 hat nicht geantwortet.</translation>
    </message>
    <message>
        <source>%1 answered with an error (HTTP %2).</source>
        <translation>%1 hat mit einem Fehler geantwortet (HTTP %2).</translation>
    </message>
    <message>
        <source>The provider&apos;s answer (%1): %2</source>
        <translation>Antwort des Anbieters (%1): %2</translation>
    </message>
    <message>
        <source>%1 was unavailable (HTTP %2) — %3 look-ups failed between %4 and %5.</source>
        <translation>%1 war nicht erreichbar (HTTP %2) — %3 Abfragen schlugen zwischen %4 und %5 fehl.</translation>
    </message>
    <message>
        <source>%1 was unavailable (HTTP %2) — a look-up failed at %3.</source>
        <translation>%1 war nicht erreichbar (HTTP %2) — eine Abfrage schlug um %3 fehl.</translation>
    </message>
    <message>
        <source>%1 did not answer — %2 look-ups failed between %3 and %4.</source>
        <translation>%1 hat nicht geantwortet — %2 Abfragen schlugen zwischen %3 und %4 fehl.</translation>
    </message>
    <message>
        <source>%1 did not answer — a look-up failed at %2.</source>
        <translation>%1 hat nicht geantwortet — eine Abfrage schlug um %2 fehl.</translation>
    </message>
    <message>
        <source>%1 answered with an error (HTTP %2) — %3 look-ups failed between %4 and %5.</source>
        <translation>%1 hat mit einem Fehler geantwortet (HTTP %2) — %3 Abfragen schlugen zwischen %4 und %5 fehl.</translation>
    </message>
    <message>
        <source>%1 answered with an error (HTTP %2) — a look-up failed at %3.</source>
        <translation>%1 hat mit einem Fehler geantwortet (HTTP %2) — eine Abfrage schlug um %3 fehl.</translation>
    </message>
</context>
<context>
    <name>cs::RoleSwitcher</name>
    <message>
        <source>Sign &amp;in as</source>
        <translation>&amp;Anmelden als</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
</context>
<context>
    <name>cs::ScoreSheetDialog</name>
    <message>
        <source>Approve or reject</source>
        <translation>Freigeben oder ablehnen</translation>
    </message>
    <message>
        <source>Reconcile</source>
        <translation>Abgleichen</translation>
    </message>
    <message>
        <source>Follow up</source>
        <translation>Folgeaktion</translation>
    </message>
    <message>
        <source>Exercise score sheet</source>
        <translation>Bewertungsbogen der Übung</translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n decision(s) right</source>
        <translation>
            <numerusform>%1 von %n Entscheidung richtig</numerusform>
            <numerusform>%1 von %n Entscheidungen richtig</numerusform>
        </translation>
    </message>
    <message>
        <source>Action</source>
        <translation>Aktion</translation>
    </message>
    <message>
        <source>Judgement</source>
        <translation>Bewertung</translation>
    </message>
    <message>
        <source>What you did</source>
        <translation>Was Sie getan haben</translation>
    </message>
    <message>
        <source>What was right</source>
        <translation>Was richtig war</translation>
    </message>
    <message>
        <source>Why</source>
        <translation>Warum</translation>
    </message>
    <message>
        <source>RIGHT</source>
        <translation>RICHTIG</translation>
    </message>
    <message>
        <source>WRONG</source>
        <translation>FALSCH</translation>
    </message>
    <message>
        <source>&amp;Export…</source>
        <translation>&amp;Exportieren…</translation>
    </message>
    <message>
        <source>Export the score sheet</source>
        <translation>Den Bewertungsbogen exportieren</translation>
    </message>
    <message>
        <source>CSV (*.csv);;JSON (*.json);;Text (*.txt)</source>
        <translation>CSV (*.csv);;JSON (*.json);;Text (*.txt)</translation>
    </message>
    <message>
        <source>score-sheet.csv</source>
        <translation>bewertungsbogen.csv</translation>
    </message>
    <message>
        <source>Could not write %1: %2</source>
        <translation>%1 konnte nicht geschrieben werden: %2</translation>
    </message>
    <message>
        <source>Decision</source>
        <translation>Entscheidung</translation>
    </message>
    <message>
        <source>%1
%2. %3</source>
        <translation>%1
%2. %3</translation>
    </message>
</context>
<context>
    <name>cs::SettlementCloseDialog</name>
    <message>
        <source>Close the failed refund without re-sending</source>
        <translation>Fehlgeschlagene Erstattung ohne erneutes Senden schließen</translation>
    </message>
    <message>
        <source>&amp;Note (required: why nothing more is refunded through Countersign):</source>
        <translation>&amp;Notiz (erforderlich: warum über Countersign nichts mehr erstattet wird):</translation>
    </message>
    <message>
        <source>e.g. refunded by bank transfer, ticket 4411</source>
        <translation>z. B. per Banküberweisung erstattet, Ticket 4411</translation>
    </message>
    <message>
        <source>Close without re-sending</source>
        <translation>Ohne erneutes Senden schließen</translation>
    </message>
    <message>
        <source>This refund has no open review item: it was decided already, or it did not fail.</source>
        <translation>Zu dieser Erstattung ist keine Prüfung offen: Sie wurde schon entschieden, oder sie ist nicht fehlgeschlagen.</translation>
    </message>
    <message>
        <source>Write a note: why the customer is not refunded again through Countersign.</source>
        <translation>Schreiben Sie eine Notiz: warum der Kunde nicht erneut über Countersign erstattet bekommt.</translation>
    </message>
    <message>
        <source>&lt;p style=&quot;font-size:large&quot;&gt;&lt;b&gt;Close the failed refund of %1 on %2&lt;/b&gt;&lt;/p&gt;</source>
        <translation>&lt;p style=&quot;font-size:large&quot;&gt;&lt;b&gt;Fehlgeschlagene Erstattung von %1 auf %2 schließen&lt;/b&gt;&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;The provider accepted refund &lt;code&gt;%1&lt;/code&gt;, then reported it &lt;b&gt;%2&lt;/b&gt; on %3%4. &lt;b&gt;The customer has not been refunded.&lt;/b&gt;&lt;/p&gt;</source>
        <translation>&lt;p&gt;Der Anbieter hat die Erstattung &lt;code&gt;%1&lt;/code&gt; angenommen und sie dann am %3%4 mit Status &lt;b&gt;%2&lt;/b&gt; gemeldet. &lt;b&gt;Der Kunde hat kein Geld zurückerhalten.&lt;/b&gt;&lt;/p&gt;</translation>
    </message>
    <message>
        <source> (%1)</source>
        <translation> (%1)</translation>
    </message>
    <message>
        <source>&lt;p&gt;Closing records your decision and note; the action stays COMPLETED and &lt;b&gt;nothing is sent&lt;/b&gt; to the provider, now or later. To refund the customer through Countersign instead, cancel and choose &lt;i&gt;Propose follow-up&lt;/i&gt;.&lt;/p&gt;</source>
        <translation>&lt;p&gt;Das Schließen speichert Ihre Entscheidung und Notiz; die Aktion bleibt COMPLETED und &lt;b&gt;nichts wird&lt;/b&gt; an den Anbieter &lt;b&gt;gesendet&lt;/b&gt;, weder jetzt noch später. Um dem Kunden stattdessen über Countersign zu erstatten, brechen Sie ab und wählen &lt;i&gt;Folgeaktion vorschlagen&lt;/i&gt;.&lt;/p&gt;</translation>
    </message>
</context>
<context>
    <name>cs::SettlementHistoryModel</name>
    <message>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>Zeit</translation>
    </message>
    <message>
        <source>Refund status</source>
        <translation>Erstattungsstatus</translation>
    </message>
    <message>
        <source>Failure reason</source>
        <translation>Fehlergrund</translation>
    </message>
    <message>
        <source>Learned from</source>
        <translation>Erfahren durch</translation>
    </message>
    <message>
        <source>Evidence</source>
        <translation>Nachweise</translation>
    </message>
    <message>
        <source>the attempt&apos;s answer</source>
        <translation>die Antwort auf den Versuch</translation>
    </message>
    <message>
        <source>a look-up</source>
        <translation>eine Abfrage</translation>
    </message>
    <message>
        <source>a webhook event</source>
        <translation>ein Webhook-Ereignis</translation>
    </message>
    <message>
        <source>a reconciliation</source>
        <translation>einen Abgleich</translation>
    </message>
    <message>
        <source>a scheduled check</source>
        <translation>eine geplante Prüfung</translation>
    </message>
    <message>
        <source>%1 → %2</source>
        <translation>%1 → %2</translation>
    </message>
</context>
<context>
    <name>cs::SettlementView</name>
    <message>
        <source>Refund status</source>
        <translation>Erstattungsstatus</translation>
    </message>
    <message>
        <source>Refund</source>
        <translation>Erstattung</translation>
    </message>
    <message>
        <source>Last confirmed</source>
        <translation>Zuletzt bestätigt</translation>
    </message>
    <message>
        <source>Next check</source>
        <translation>Nächste Prüfung</translation>
    </message>
    <message>
        <source>Decision</source>
        <translation>Entscheidung</translation>
    </message>
    <message>
        <source>Refund status:</source>
        <translation>Erstattungsstatus:</translation>
    </message>
    <message>
        <source>Refund:</source>
        <translation>Erstattung:</translation>
    </message>
    <message>
        <source>Last confirmed:</source>
        <translation>Zuletzt bestätigt:</translation>
    </message>
    <message>
        <source>Next check:</source>
        <translation>Nächste Prüfung:</translation>
    </message>
    <message>
        <source>Decision:</source>
        <translation>Entscheidung:</translation>
    </message>
    <message>
        <source>Refund status changes</source>
        <translation>Änderungen des Erstattungsstatus</translation>
    </message>
    <message>
        <source>succeeded — the customer has been refunded</source>
        <translation>succeeded — der Kunde hat das Geld zurückerhalten</translation>
    </message>
    <message>
        <source>%1 after it was accepted — the customer has NOT been refunded</source>
        <translation>%1 nach der Annahme — der Kunde hat KEIN Geld zurückerhalten</translation>
    </message>
    <message>
        <source>%1 after it was accepted (%2) — the customer has NOT been refunded</source>
        <translation>%1 nach der Annahme (%2) — der Kunde hat KEIN Geld zurückerhalten</translation>
    </message>
    <message>
        <source>%1 — still settling at the provider</source>
        <translation>%1 — wird beim Anbieter noch abgewickelt</translation>
    </message>
    <message>
        <source>%1, from %2</source>
        <translation>%1, durch %2</translation>
    </message>
    <message numerus="yes">
        <source>%n scheduled check(s) so far</source>
        <translation>
            <numerusform>%n geplante Prüfung bisher</numerusform>
            <numerusform>%n geplante Prüfungen bisher</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 (%2); a webhook event may settle it sooner · %3</source>
        <translation>%1 (%2); ein Webhook-Ereignis kann sie früher klären · %3</translation>
    </message>
    <message>
        <source>in %1</source>
        <translation>in %1</translation>
    </message>
    <message>
        <source>due now</source>
        <translation>jetzt fällig</translation>
    </message>
    <message>
        <source>none scheduled; waiting for a webhook event · %1</source>
        <translation>keine geplant; wartet auf ein Webhook-Ereignis · %1</translation>
    </message>
    <message>
        <source>&lt;b&gt;open&lt;/b&gt; since %1: a supervisor decides — propose it again as a follow-up, or close it with a note</source>
        <translation>&lt;b&gt;offen&lt;/b&gt; seit %1: Ein Supervisor entscheidet — als Folgeaktion erneut vorschlagen oder mit einer Notiz schließen</translation>
    </message>
    <message>
        <source>re-proposed by %1 on %2 as follow-up &lt;a href=&quot;#%3&quot;&gt;%3&lt;/a&gt; (its own approval and key)</source>
        <translation>von %1 am %2 als Folgeaktion &lt;a href=&quot;#%3&quot;&gt;%3&lt;/a&gt; neu vorgeschlagen (eigene Freigabe und eigener Schlüssel)</translation>
    </message>
    <message>
        <source>closed by %1 on %2 without re-sending: “%3”</source>
        <translation>von %1 am %2 ohne erneutes Senden geschlossen: „%3“</translation>
    </message>
</context>
<context>
    <name>cs::TimelineWidget</name>
    <message>
        <source>Timeline of the action</source>
        <translation>Zeitleiste der Aktion</translation>
    </message>
    <message>
        <source>proposed</source>
        <translation>vorgeschlagen</translation>
    </message>
    <message>
        <source>%1 → %2 (%3, by %4)
%5
%6</source>
        <translation>%1 → %2 (%3, von %4)
%5
%6</translation>
    </message>
    <message>
        <source>Proposed by %1 at %2</source>
        <translation>Vorgeschlagen von %1 um %2</translation>
    </message>
    <message>
        <source>rejected</source>
        <translation>abgelehnt</translation>
    </message>
    <message>
        <source>rejected: %1</source>
        <translation>abgelehnt: %1</translation>
    </message>
    <message>
        <source>approved v%1</source>
        <translation>freigegeben v%1</translation>
    </message>
    <message>
        <source>Approval v%1 by %2 at %3
key %4
signs %5</source>
        <translation>Freigabe v%1 von %2 um %3
Schlüssel %4
unterschreibt %5</translation>
    </message>
    <message>
        <source>Rejected by %1 at %2: %3</source>
        <translation>Abgelehnt von %1 um %2: %3</translation>
    </message>
    <message>
        <source>v%1 expired</source>
        <translation>v%1 abgelaufen</translation>
    </message>
    <message>
        <source>Approval v%1 by %2 expired unsent at %3 (it counted until %4); key %5 was never used: the action needs approval again</source>
        <translation>Freigabe v%1 von %2 ist um %3 ungesendet abgelaufen (sie galt bis %4); Schlüssel %5 wurde nie verwendet: Die Aktion braucht erneut eine Freigabe</translation>
    </message>
    <message>
        <source>reconciled: committed</source>
        <translation>abgeglichen: verbucht</translation>
    </message>
    <message>
        <source>reconciled: not committed</source>
        <translation>abgeglichen: nicht verbucht</translation>
    </message>
    <message>
        <source>Reconciled by %1 at %2 on lookup #%3: %4</source>
        <translation>Abgeglichen von %1 um %2 anhand von Abfrage #%3: %4</translation>
    </message>
    <message>
        <source>changed payload #%1</source>
        <translation>geänderte Nutzdaten #%1</translation>
    </message>
    <message>
        <source>%1 resubmitted a changed payload under the same reference at %2</source>
        <translation>%1 hat um %2 geänderte Nutzdaten unter derselben Referenz erneut eingereicht</translation>
    </message>
    <message>
        <source>no answer</source>
        <translation>keine Antwort</translation>
    </message>
    <message>
        <source>#%1 %2 · %3</source>
        <translation>#%1 %2 · %3</translation>
    </message>
    <message>
        <source> · replayed</source>
        <translation> · wiederholt</translation>
    </message>
    <message>
        <source>Attempt #%1 by %2
started %3
finished %4
outcome %5, HTTP %6%7
key %8
fingerprint %9</source>
        <translation>Versuch #%1 von %2
begonnen %3
beendet %4
Ergebnis %5, HTTP %6%7
Schlüssel %8
Fingerabdruck %9</translation>
    </message>
    <message>
        <source>not yet</source>
        <translation>noch nicht</translation>
    </message>
    <message>
        <source>#%1 %2</source>
        <translation>#%1 %2</translation>
    </message>
    <message>
        <source>key window ends</source>
        <translation>Schlüsselfenster endet</translation>
    </message>
    <message>
        <source>key window ended</source>
        <translation>Schlüsselfenster beendet</translation>
    </message>
    <message>
        <source>Same-key retries stop at %1 (the provider&apos;s key window minus a safety margin); after it only lookups and human reconciliation.</source>
        <translation>Wiederholungen mit demselben Schlüssel enden um %1 (das Schlüsselfenster des Anbieters abzüglich einer Sicherheitsmarge); danach nur noch Abfragen und Abgleich durch Menschen.</translation>
    </message>
    <message>
        <source>now</source>
        <translation>jetzt</translation>
    </message>
    <message>
        <source>State</source>
        <translation>Zustand</translation>
    </message>
    <message>
        <source>Decisions</source>
        <translation>Entscheide</translation>
    </message>
    <message>
        <source>Attempts</source>
        <translation>Versuche</translation>
    </message>
    <message>
        <source>Lookups</source>
        <translation>Abfragen</translation>
    </message>
    <message>
        <source>Marker</source>
        <translation>Markierung</translation>
    </message>
    <message>
        <source>Select an action to see its timeline.</source>
        <translation>Wählen Sie eine Aktion aus, um ihre Zeitleiste zu sehen.</translation>
    </message>
    <message>
        <source>MMM d, HH:mm:ss</source>
        <comment>date format of a timeline tick</comment>
        <translation>d. MMM, HH:mm:ss</translation>
    </message>
    <message>
        <source>refund %1</source>
        <translation>Erstattung %1</translation>
    </message>
    <message>
        <source>refund %1: %2</source>
        <translation>Erstattung %1: %2</translation>
    </message>
    <message>
        <source>Refund %1: %2 → %3 at %4
learned from %5 (%6)%7</source>
        <translation>Erstattung %1: %2 → %3 um %4
erfahren durch %5 (%6)%7</translation>
    </message>
    <message>
        <source>
failure reason: %1</source>
        <translation>
Fehlergrund: %1</translation>
    </message>
    <message>
        <source>closed without re-sending</source>
        <translation>ohne erneutes Senden geschlossen</translation>
    </message>
    <message>
        <source>The failed refund was closed by %1 at %2 without re-sending: %3</source>
        <translation>Die fehlgeschlagene Erstattung wurde von %1 um %2 ohne erneutes Senden geschlossen: %3</translation>
    </message>
    <message>
        <source>re-proposed as %1</source>
        <translation>neu vorgeschlagen als %1</translation>
    </message>
    <message>
        <source>The failed refund was re-proposed by %1 at %2 as follow-up %3, with its own approval and key</source>
        <translation>Die fehlgeschlagene Erstattung wurde von %1 um %2 als Folgeaktion %3 neu vorgeschlagen, mit eigener Freigabe und eigenem Schlüssel</translation>
    </message>
    <message>
        <source>next check</source>
        <translation>nächste Prüfung</translation>
    </message>
    <message>
        <source>The next scheduled look-up of refund %1 (%2); a webhook event may settle it sooner</source>
        <translation>Die nächste geplante Abfrage der Erstattung %1 (%2); ein Webhook-Ereignis kann sie früher klären</translation>
    </message>
    <message numerus="yes">
        <source>#%1–#%2 %3 (%n webhook event(s))</source>
        <comment>lookups at one instant saying the same</comment>
        <translation>
            <numerusform>#%1–#%2 %3 (%n Webhook-Ereignis)</numerusform>
            <numerusform>#%1–#%2 %3 (%n Webhook-Ereignisse)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>#%1–#%2 %3 (%n lookup(s))</source>
        <comment>lookups at one instant saying the same</comment>
        <translation>
            <numerusform>#%1–#%2 %3 (%n Abfrage)</numerusform>
            <numerusform>#%1–#%2 %3 (%n Abfragen)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>cs::TokenStore</name>
    <message>
        <source>Cannot create %1</source>
        <translation>%1 kann nicht erstellt werden</translation>
    </message>
    <message>
        <source>Cannot write %1</source>
        <translation>%1 kann nicht geschrieben werden</translation>
    </message>
</context>
<context>
    <name>cs::TrayIndicator</name>
    <message>
        <source>&amp;Show Countersign</source>
        <translation>Countersign &amp;anzeigen</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Beenden</translation>
    </message>
    <message>
        <source>Countersign</source>
        <translation>Countersign</translation>
    </message>
</context>
<context>
    <name>cs::dialogparts</name>
    <message>
        <source>Stop resending</source>
        <translation>Erneutes Senden beenden</translation>
    </message>
</context>
<context>
    <name>cs::display</name>
    <message>
        <source>Pending</source>
        <translation>Ausstehend</translation>
    </message>
    <message>
        <source>Executing</source>
        <translation>Wird ausgeführt</translation>
    </message>
    <message>
        <source>Confirmation unknown</source>
        <translation>Bestätigung unbekannt</translation>
    </message>
    <message>
        <source>Completed</source>
        <translation>Abgeschlossen</translation>
    </message>
    <message>
        <source>Rejected</source>
        <translation>Abgelehnt</translation>
    </message>
    <message>
        <source>Requires review</source>
        <translation>Prüfung nötig</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 s</translation>
    </message>
    <message>
        <source>%1 min</source>
        <translation>%1 Min.</translation>
    </message>
    <message>
        <source>%1 h</source>
        <translation>%1 Std.</translation>
    </message>
    <message>
        <source>%1 d</source>
        <translation>%1 T.</translation>
    </message>
    <message>
        <source>just now</source>
        <translation>gerade eben</translation>
    </message>
    <message>
        <source>%1 ago</source>
        <translation>vor %1</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 ms</translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation>%1 Min. %2 s</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1 Std. %2 Min.</translation>
    </message>
    <message>
        <source>%1 d %2 h</source>
        <translation>%1 T. %2 Std.</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>ja</translation>
    </message>
    <message>
        <source>no</source>
        <translation>nein</translation>
    </message>
    <message>
        <source>Wrong amount</source>
        <translation>Falscher Betrag</translation>
    </message>
    <message>
        <source>Duplicate</source>
        <translation>Duplikat</translation>
    </message>
    <message>
        <source>Not eligible</source>
        <translation>Nicht berechtigt</translation>
    </message>
    <message>
        <source>Needs information</source>
        <translation>Informationen fehlen</translation>
    </message>
    <message>
        <source>Other</source>
        <translation>Sonstiges</translation>
    </message>
    <message>
        <source>the policy (rule %1, v%2)</source>
        <translation>die Richtlinie (Regel %1, v%2)</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>Starting the demo backend and the payment simulator…</source>
        <translation>Das Demo-Backend und der Zahlungssimulator werden gestartet…</translation>
    </message>
    <message>
        <source>Countersign demo</source>
        <translation>Countersign-Demo</translation>
    </message>
    <message>
        <source>The demo could not start:
%1</source>
        <translation>Die Demo konnte nicht starten:
%1</translation>
    </message>
</context>
</TS>
