#pragma once

#include "ui/decisiondialog.h"

class QLabel;

namespace cs {

class DetailsDisclosure;

// Ask the provider now what happened to this action. States what will be asked and that it
// cannot refund anything; after confirming it shows the answer as it arrives, in words
// ("lookupAnswer"), with the look-up and the provider's raw answer under Details.
class LookupDialog : public DecisionDialog
{
    Q_OBJECT

public:
    explicit LookupDialog(const ActionDetail &detail, QWidget *parent = nullptr);

    // The recorded lookup and the action after it.
    void showResult(const ProviderLookup &lookup, const ActionRecord &after);

protected:
    void refresh() override;

private:
    QLabel *m_answer;
    DetailsDisclosure *m_answerDetails;
};

} // namespace cs
